import type { MeasurementRecord } from '../db/measurements';

/**
 * How many of a KPI's newest measurements the KPI list reads (issue 15): enough for a sparkline and a
 * stable median of 7 intervals, and few enough that one Query reads at most 4 KB (a stored measurement
 * is ~400–450 bytes), which DynamoDB bills as 0.5 read units when eventually consistent.
 */
export const RECENT_MEASUREMENTS = 8;

/** Most KPIs per page when each brings its activity: one Query per KPI, so the fan-out stays bounded. */
export const MAX_ACTIVITY_PAGE_SIZE = 100;

const DAY_MS = 86_400_000;

/** A point of the sparkline: the values of one period. */
export interface ActivityPoint {
  periodStart: string;
  periodEnd: string;
  actual: number;
  target: number | null;
  forecast: number | null;
}

export interface KpiActivity {
  /** The newest period's measurement, or null when the KPI has none. */
  latest: MeasurementRecord | null;
  /** Up to RECENT_MEASUREMENTS newest periods, newest first. */
  recent: ActivityPoint[];
  /** When a measurement of the KPI last arrived (the newest `receivedAt` among `recent`). */
  lastReceivedAt: string | null;
  /** The KPI's usual interval between periods, in days (see `usualIntervalDays`); null without data. */
  usualIntervalDays: number | null;
  /** Nothing arrived for more than twice the usual interval, or nothing ever arrived (issue 15). */
  quiet: boolean;
}

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

/**
 * The list's summary of a KPI from its newest measurements (newest first, as the Query returns them).
 * Records without `receivedAt` (written before push kept it) count as received when last updated.
 */
export const kpiActivity = (recentNewestFirst: MeasurementRecord[], nowMs: number): KpiActivity => {
  const latest = recentNewestFirst[0] ?? null;
  const received = recentNewestFirst
    .map((m) => m.receivedAt ?? m.updatedAt)
    .filter((at) => !Number.isNaN(Date.parse(at)))
    .sort();
  const lastReceivedAt = received.at(-1) ?? null;
  const usual = usualIntervalDays(recentNewestFirst);
  const quiet =
    lastReceivedAt === null || usual === null || nowMs - Date.parse(lastReceivedAt) > 2 * usual * DAY_MS;
  return {
    latest,
    recent: recentNewestFirst.map(({ periodStart, periodEnd, actual, target, forecast }) => ({
      periodStart,
      periodEnd,
      actual,
      target,
      forecast,
    })),
    lastReceivedAt,
    usualIntervalDays: usual,
    quiet,
  };
};
