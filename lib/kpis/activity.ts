import * as z from 'zod/mini';
import { type Measurement, measurementSchema, periodValuesSchema } from '../domain/measurement';

/**
 * How many of a KPI's newest measurements the KPI list reads: enough for a sparkline and a
 * stable median of 7 intervals, and few enough that one Query reads at most 4 KB (a stored measurement
 * is ~400–450 bytes), which DynamoDB bills as 0.5 read units when eventually consistent.
 */
export const RECENT_MEASUREMENTS = 8;

/**
 * Most KPIs per page when each brings its activity: its status may take a second Query per KPI, all
 * in parallel, so the fan-out stays bounded.
 */
export const MAX_ACTIVITY_PAGE_SIZE = 100;

const DAY_MS = 86_400_000;

/**
 * What the KPI list says of a KPI's recent periods: its newest measurement, the values of up to
 * RECENT_MEASUREMENTS newest periods (newest first) and the KPI's usual interval between periods in
 * days. Whether it is quiet is the KPI's own `quiet` (lib/kpis/quiet.ts), from its cadence.
 */
export const kpiActivitySchema = z
  .object({
    latest: z
      .nullable(measurementSchema)
      .check(z.describe('The newest period’s measurement; `null` when the KPI has none.')),
    recent: z
      .array(
        periodValuesSchema.check(z.meta({ id: 'ActivityPoint', description: 'The values of one period.' })),
      )
      .check(z.describe('The values of up to 8 newest periods, newest first (for a sparkline).')),
    usualIntervalDays: z
      .nullable(z.number())
      .check(
        z.describe(
          'The median gap in days between the starts of those periods (with one period, its length); `null` without data.',
        ),
      ),
  })
  .check(
    z.meta({ id: 'KpiActivity', description: 'What arrived for the KPI lately, from its 8 newest periods.' }),
  );
export type KpiActivity = z.output<typeof kpiActivitySchema>;

type ActivityPoint = KpiActivity['recent'][number];

const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/**
 * The usual interval between a KPI's periods, in days: the median of the gaps between consecutive
 * `periodStart`s (two periods starting on the same day, e.g. a week and a month, are no gap). With a
 * single period there is no gap yet, so the period's own length stands in for it: a month-long period
 * suggests a monthly rhythm.
 */
export const usualIntervalDays = (measurements: Pick<ActivityPoint, 'periodStart' | 'periodEnd'>[]) => {
  if (measurements.length === 0) return null;
  const starts = [...new Set(measurements.map((m) => dayNumber(m.periodStart)))].sort((a, b) => a - b);
  const gaps = starts.slice(1).map((start, i) => start - (starts[i] as number));
  if (gaps.length > 0) return median(gaps);
  const only = measurements[0] as Pick<ActivityPoint, 'periodStart' | 'periodEnd'>;
  return dayNumber(only.periodEnd) - dayNumber(only.periodStart) + 1;
};

/** The list's summary of a KPI from its newest measurements (newest first, as the Query returns them). */
export const kpiActivity = (recentNewestFirst: Measurement[]): KpiActivity => ({
  latest: recentNewestFirst[0] ?? null,
  recent: recentNewestFirst.map(({ periodStart, periodEnd, actual, target, forecast }) => ({
    periodStart,
    periodEnd,
    actual,
    target,
    forecast,
  })),
  usualIntervalDays: usualIntervalDays(recentNewestFirst),
});
