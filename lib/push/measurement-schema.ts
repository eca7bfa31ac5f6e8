import * as z from 'zod/mini';
import { KPI_TYPES } from '../domain';

/** Maximum measurements per batch request (spec 8). */
export const MAX_BATCH_SIZE = 50;

/**
 * The numbers a measurement value may take: every one of them is stored and read back unchanged.
 * JSON allows any double, but the store does not: DynamoDB numbers lie between 1e-130 and 1e126 in
 * magnitude, and a double beyond ±(2^53 − 1) is an integer that JavaScript cannot read back exactly
 * (the DynamoDB marshaller refuses it). Within these bounds the shortest decimal form of a double (at
 * most 17 significant digits) fits DynamoDB's 38 digits, so the value round-trips bit for bit.
 * `-0` is stored as `0`, so it is read as `0` (the README says so).
 */
export const MAX_MEASUREMENT_VALUE = Number.MAX_SAFE_INTEGER;
export const MIN_MEASUREMENT_MAGNITUDE = 1e-130;
const RANGE_MESSAGE = `must be 0 or a number whose magnitude is between ${MIN_MEASUREMENT_MAGNITUDE} and ${MAX_MEASUREMENT_VALUE}`;

const storableNumber = (typeMessage: string) =>
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
/** `null` means absent for the optional numbers (issue 4). JSON cannot carry NaN or Infinity. */
const optionalNumber = z.nullish(storableNumber('must be a finite number or null'));

const monthOf = (date: string) => {
  const [year, month] = date.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const mm = String(month).padStart(2, '0');
  return { start: `${year}-${mm}-01`, end: `${year}-${mm}-${last}` }; // a month's last day is 28 to 31
};

/**
 * Spec 2.5. Missing period bounds default to the month (UTC): of the other bound when one is given,
 * else the current month. So a cron job that pushes month-to-date values every day can omit both.
 */
export const measurementSchema = z
  .pipe(
    z.strictObject({
      kpiId: z.uuid({ message: 'must be the UUID of a KPI' }),
      kpiType: z.enum(KPI_TYPES, { message: `must be one of ${KPI_TYPES.join(', ')}` }),
      actual: storableNumber('must be a finite number'),
      target: optionalNumber,
      forecast: optionalNumber,
      periodStart: z.optional(calendarDate),
      periodEnd: z.optional(calendarDate),
    }),
    z.transform(({ periodStart, periodEnd, target, forecast, ...rest }) => {
      // Stryker disable next-line MethodExpression: monthOf reads only year and month, the time part is ignored
      const month = monthOf(periodStart ?? periodEnd ?? new Date().toISOString().slice(0, 10));
      return {
        ...rest,
        target: target ?? undefined,
        forecast: forecast ?? undefined,
        periodStart: periodStart ?? month.start,
        periodEnd: periodEnd ?? month.end,
      };
    }),
  )
  .check(
    z.refine((m) => m.periodStart <= m.periodEnd, {
      message: 'must not be after periodEnd',
      path: ['periodStart'],
    }),
  );

export type MeasurementInput = z.output<typeof measurementSchema>;

/** Two elements with the same identity (KPI and period) would make the result depend on order: 400. */
const identity = (m: MeasurementInput) => `${m.kpiId}|${m.periodStart}|${m.periodEnd}`;

export const batchSchema = z
  .strictObject({
    measurements: z
      .array(measurementSchema)
      .check(
        z.minLength(1, 'must contain at least 1 measurement'),
        z.maxLength(MAX_BATCH_SIZE, `must contain at most ${MAX_BATCH_SIZE} measurements`),
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
  );
