import * as z from 'zod/mini';
import { kpiTypeSchema } from '../domain/kpi';
import { DEFAULT_KPI_PERIOD, periodContaining } from '../domain/period';

/** Maximum measurements per batch request (spec 8). */
export const MAX_BATCH_SIZE = 50;

/**
 * The numbers a measurement value may take: every one of them is stored and read back unchanged.
 * JSON allows any double, but the store does not: DynamoDB numbers lie between 1e-130 and 1e126 in
 * magnitude, and a double beyond ±(2^53 − 1) is an integer that JavaScript cannot read back exactly
 * (the DynamoDB marshaller refuses it). Within these bounds the shortest decimal form of a double (at
 * most 17 significant digits) fits DynamoDB's 38 digits, so the value round-trips bit for bit.
 * `-0` is stored as `0`, so it is read as `0` (docs/api.md says so).
 */
export const MAX_MEASUREMENT_VALUE = Number.MAX_SAFE_INTEGER;
export const MIN_MEASUREMENT_MAGNITUDE = 1e-130;
const RANGE_MESSAGE = `must be 0 or a number whose magnitude is between ${MIN_MEASUREMENT_MAGNITUDE} and ${MAX_MEASUREMENT_VALUE}`;

export const storableNumber = (typeMessage: string) =>
  z.pipe(
    z.number({ message: typeMessage }).check(
      z.refine((value) => {
        const magnitude = Math.abs(value);
        return (
          magnitude === 0 || (magnitude >= MIN_MEASUREMENT_MAGNITUDE && magnitude <= MAX_MEASUREMENT_VALUE)
        );
      }, RANGE_MESSAGE),
    ),
    z.transform((value: number) => (Object.is(value, -0) ? 0 : value)),
  );

const calendarDate = z.iso.date({ message: 'must be a calendar date YYYY-MM-DD, e.g. 2026-02-28' });
/** `null` means absent for the optional numbers. JSON cannot carry NaN or Infinity. */
const optionalNumber = (description: string) =>
  z.nullish(storableNumber('must be a finite number or null')).check(z.describe(description));

const MEASUREMENT_NUMBER = `A finite number: 0, or a magnitude between ${MIN_MEASUREMENT_MAGNITUDE} and ${MAX_MEASUREMENT_VALUE} (what DynamoDB stores and JavaScript reads back exactly). \`-0\` is stored as 0.`;

/**
 * Spec 2.5. A bound left out is the KPI's to fill, known only once the KPI is read: the schema fills
 * it with the month (UTC) of the other bound, or the current month (the interface's default, and the
 * key the push reads a stored record at before it knows the KPI), and says which it filled in
 * `defaulted`. The push then puts the measurement in its KPI's period (lib/domain/period.ts
 * `resolvePeriod`), and a span that is not one whole period of the KPI is refused there.
 */
export const measurementInputSchema = z
  .pipe(
    z.strictObject({
      kpiId: z
        .uuid({ message: 'must be the UUID of a KPI' })
        .check(z.describe('UUID of a KPI of the key’s tenant (`GET /kpis`).')),
      kpiType: kpiTypeSchema.check(z.describe('The KPI’s type; must match the KPI.')),
      actual: storableNumber('must be a finite number').check(
        z.describe(`Actual (realized) value. ${MEASUREMENT_NUMBER}`),
      ),
      target: optionalNumber(`Target value for the period; \`null\` or absent = none. ${MEASUREMENT_NUMBER}`),
      forecast: optionalNumber(`Forecast value; \`null\` or absent = none. ${MEASUREMENT_NUMBER}`),
      periodStart: z.optional(
        calendarDate.check(
          z.describe(
            'First day of the period, a calendar date `YYYY-MM-DD` (UTC; `2026-02-30` is invalid). With `periodEnd`, the two must be one whole period of the KPI (its `period`: day, ISO week, month, quarter or year); alone, it names the KPI period that holds it. Default: the KPI’s current period (for a monthly KPI, the current month).',
          ),
        ),
      ),
      periodEnd: z.optional(
        calendarDate.check(
          z.describe(
            'Last day of the period, `YYYY-MM-DD`. Alone, it names the KPI period that holds it. Default: the end of the KPI’s current period, or of the period that holds `periodStart`.',
          ),
        ),
      ),
    }),
    z.transform(({ periodStart, periodEnd, target, forecast, ...rest }) => {
      const month = periodContaining(
        DEFAULT_KPI_PERIOD,
        // Stryker disable next-line MethodExpression: only the day of the instant is read
        periodStart ?? periodEnd ?? new Date().toISOString().slice(0, 10),
      );
      const defaulted: Defaulted | undefined =
        periodStart === undefined
          ? periodEnd === undefined
            ? 'both'
            : 'periodStart'
          : periodEnd === undefined
            ? 'periodEnd'
            : undefined;
      return {
        ...rest,
        target: target ?? undefined,
        forecast: forecast ?? undefined,
        periodStart: periodStart ?? month.periodStart,
        periodEnd: periodEnd ?? month.periodEnd,
        ...(defaulted ? { defaulted } : {}),
      };
    }),
  )
  .check(
    z.refine((m) => m.periodStart <= m.periodEnd, {
      message: 'must not be after periodEnd',
      path: ['periodStart'],
    }),
    z.meta({
      id: 'MeasurementInput',
      description:
        'Unknown fields are rejected. A measurement is identified by (KPI, `periodStart`, `periodEnd`): pushing the same KPI and period again replaces the values.',
    }),
  );

/** Which bounds of a measurement were left out, so that its KPI's period fills them. */
export type Defaulted = 'both' | 'periodStart' | 'periodEnd';

/** A measurement as its sender gave it: only the bounds it named, which its KPI's period completes. */
export type GivenMeasurement = Omit<MeasurementInput, 'defaulted' | 'periodStart' | 'periodEnd'> & {
  periodStart?: string | undefined;
  periodEnd?: string | undefined;
};

/**
 * A parsed measurement without what parsing filled in: the month's bounds stand in only until the
 * KPI's own period is known (the service's write path), so a client that checked a row sends this.
 */
export const asGiven = ({ defaulted, ...m }: MeasurementInput): GivenMeasurement => ({
  ...m,
  periodStart: defaulted === 'both' || defaulted === 'periodStart' ? undefined : m.periodStart,
  periodEnd: defaulted === 'both' || defaulted === 'periodEnd' ? undefined : m.periodEnd,
});

export type MeasurementInput = z.output<typeof measurementInputSchema>;

/** Two elements with the same identity (KPI and period) would make the result depend on order: 400. */
const identity = (m: MeasurementInput) => `${m.kpiId}|${m.periodStart}|${m.periodEnd}`;

export const batchSchema = z
  .strictObject({
    measurements: z
      .array(measurementInputSchema)
      .check(
        z.minLength(1, 'must contain at least 1 measurement'),
        z.maxLength(MAX_BATCH_SIZE, `must contain at most ${MAX_BATCH_SIZE} measurements`),
        z.describe('1 to 50 measurements; KPI types may be mixed; no two with the same KPI and period.'),
      ),
  })
  .check(
    z.superRefine(({ measurements }, ctx) => {
      const firstIndex = new Map<string, number>();
      measurements.forEach((measurement, index) => {
        const first = firstIndex.get(identity(measurement));
        if (first === undefined) {
          firstIndex.set(identity(measurement), index);
          return;
        }
        for (const [at, other] of [
          [first, index],
          [index, first],
        ] as const) {
          ctx.addIssue({
            // Stryker disable next-line StringLiteral: the answer names the path and message, not zod's code
            code: 'custom',
            path: ['measurements', at],
            message: `same kpiId and period as measurements[${other}]`,
          });
        }
      });
    }),
    z.meta({
      id: 'BatchRequest',
      description:
        'All or nothing: one invalid element, foreign KPI or repeated (KPI, period) rejects the whole batch and nothing is written.',
    }),
  );

/** `?dryRun=true|false` of the push endpoints; any other query parameter is refused. */
export const pushQuerySchema = z.strictObject({
  dryRun: z.optional(
    z
      .pipe(
        z.enum(['true', 'false'], { message: 'dryRun must be true or false' }),
        z.transform((value: 'true' | 'false') => value === 'true'),
      )
      .check(
        z.describe(
          '`true`: run every check of a push and answer what it would store, writing nothing. `false` or absent: a real push.',
        ),
      ),
  ),
});
