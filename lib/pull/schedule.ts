import type { PullSchedule } from '../domain/pull-integration';

/**
 * When a pull integration runs: the slots of its schedule (UTC), and the back-off of a failing one.
 *
 * - `15m`: :00, :15, :30 and :45 of every hour; `hour`: every hour at :00;
 * - `day`: every day at `at` (default 00:00); `week`: Mondays at `at` (ISO weeks start on Monday);
 *   `month`: the 1st at `at`.
 *
 * A run that fails a third time in a row makes the integration `failing`: its next run is not the next
 * slot but after twice its interval, doubling with every further failure, up to a day (an interval
 * longer than a day is kept: backing off never runs a source more often than its schedule). A run that
 * stores ends the back-off: the next run is the next slot again.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** Failed runs in a row that make an integration `failing`. */
export const FAILING_AFTER = 3;
/** How long failures must have gone on before a failing integration is disabled. */
export const DISABLE_AFTER_MS = DAY_MS;

/** The nominal interval of a schedule (a month as 31 days, the longest). */
export const intervalMs = ({ every }: Pick<PullSchedule, 'every'>): number =>
  ({ '15m': 15 * MINUTE_MS, hour: HOUR_MS, day: DAY_MS, week: 7 * DAY_MS, month: 31 * DAY_MS })[every];

const minutesOf = (at: string | undefined) => {
  const [hours, minutes] = (at ?? '00:00').split(':').map(Number) as [number, number];
  return hours * 60 + minutes;
};

/** The first slot of the schedule strictly after `after` (epoch ms). */
export const nextSlot = (schedule: PullSchedule, after: number): number => {
  const { every } = schedule;
  if (every === '15m' || every === 'hour') {
    const step = intervalMs(schedule);
    return Math.floor(after / step) * step + step;
  }
  const offset = minutesOf(schedule.at) * MINUTE_MS;
  const date = new Date(after);
  const dayStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  if (every === 'day') {
    const today = dayStart + offset;
    return today > after ? today : today + DAY_MS;
  }
  if (every === 'week') {
    // getUTCDay: 0 is Sunday; days since this week's Monday.
    const sinceMonday = (date.getUTCDay() + 6) % 7;
    const thisWeek = dayStart - sinceMonday * DAY_MS + offset;
    return thisWeek > after ? thisWeek : thisWeek + 7 * DAY_MS;
  }
  const thisMonth = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) + offset;
  return thisMonth > after ? thisMonth : Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) + offset;
};

/**
 * The wait after a failed run, for an integration with `failures` failed runs in a row (this one
 * included), or undefined while it is not failing (the next slot applies).
 */
export const backoffMs = (schedule: PullSchedule, failures: number): number | undefined => {
  if (failures < FAILING_AFTER) return undefined;
  const interval = intervalMs(schedule);
  // Stryker disable next-line EqualityOperator: at a day the capped doubling below answers a day too
  if (interval >= DAY_MS) return interval;
  return Math.min(interval * 2 ** (failures - FAILING_AFTER + 1), DAY_MS);
};

/** When the run after one that ended at `finishedAt` is due. */
export const nextRunAfter = (schedule: PullSchedule, finishedAt: number, failures: number): number => {
  const wait = backoffMs(schedule, failures);
  return wait === undefined ? nextSlot(schedule, finishedAt) : finishedAt + wait;
};
