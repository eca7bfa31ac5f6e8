import { z } from 'zod';
import { KPI_TYPES } from '../domain';

/** Maximum measurements per batch request (spec 8). */
export const MAX_BATCH_SIZE = 50;

const calendarDate = z.iso.date({ message: 'must be a calendar date YYYY-MM-DD, e.g. 2026-02-28' });
/** `null` means absent for the optional numbers (issue 4). JSON cannot carry NaN or Infinity. */
const optionalNumber = z.number({ message: 'must be a finite number or null' }).nullish();

const monthOf = (date: string) => {
  const [year, month] = date.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const mm = String(month).padStart(2, '0');
  return { start: `${year}-${mm}-01`, end: `${year}-${mm}-${String(last).padStart(2, '0')}` };
};

/**
 * Spec 2.5. Missing period bounds default to the month (UTC): of the other bound when one is given,
 * else the current month. So a cron job that pushes month-to-date values every day can omit both.
 */
export const measurementSchema = z
  .strictObject({
    kpiId: z.uuid({ message: 'must be the UUID of a KPI' }),
    kpiType: z.enum(KPI_TYPES, { message: `must be one of ${KPI_TYPES.join(', ')}` }),
    actual: z.number({ message: 'must be a finite number' }),
    target: optionalNumber,
    forecast: optionalNumber,
    periodStart: calendarDate.optional(),
    periodEnd: calendarDate.optional(),
  })
  .transform(({ periodStart, periodEnd, target, forecast, ...rest }) => {
    const month = monthOf(periodStart ?? periodEnd ?? new Date().toISOString().slice(0, 10));
    return {
      ...rest,
      target: target ?? undefined,
      forecast: forecast ?? undefined,
      periodStart: periodStart ?? month.start,
      periodEnd: periodEnd ?? month.end,
    };
  })
  .refine((m) => m.periodStart <= m.periodEnd, {
    message: 'must not be after periodEnd',
    path: ['periodStart'],
  });

export type MeasurementInput = z.infer<typeof measurementSchema>;

/** Two elements with the same identity (KPI and period) would make the result depend on order: 400. */
const identity = (m: MeasurementInput) => `${m.kpiId}|${m.periodStart}|${m.periodEnd}`;

export const batchSchema = z
  .strictObject({
    measurements: z
      .array(measurementSchema)
      .min(1, 'must contain at least 1 measurement')
      .max(MAX_BATCH_SIZE, `must contain at most ${MAX_BATCH_SIZE} measurements`),
  })
  .superRefine(({ measurements }, ctx) => {
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
          code: 'custom',
          path: ['measurements', at],
          message: `same kpiId and period as measurements[${other}]`,
        });
      }
    });
  });
