import * as z from 'zod/mini';
import type { KpiPeriod, PeriodSpan } from '../domain/period';
import { isWholePeriod, nextPeriod } from '../domain/period';

/**
 * Change since the last period: a period's value against the period before it. The relative
 * difference is a fraction of the previous value's size (0.25 is 25 % more), and null when the
 * previous value is zero, where no ratio exists.
 */
export interface Change {
  previous: number;
  absolute: number;
  relative: number | null;
}

export const changeSchema = z
  .nullable(
    z
      .object({
        previous: z.number().check(z.describe('The value of the period before the newest one.')),
        absolute: z.number().check(z.describe('The newest value minus the previous one.')),
        relative: z
          .nullable(z.number())
          .check(
            z.describe(
              'The difference as a fraction of the previous value’s size (0.25 is 25 % more); null when the previous value is 0.',
            ),
          ),
      })
      .check(z.meta({ id: 'KpiChange', description: 'Change since the last period.' })),
  )
  .check(
    z.describe(
      'The newest period against the period right before it; null without both (a gap, or fewer than two periods).',
    ),
  );

/** The change from `previous` to `current`; null without a previous period. */
export const changeSinceLastPeriod = (current: number, previous: number | undefined): Change | null => {
  if (previous === undefined) return null;
  const absolute = current - previous;
  return { previous, absolute, relative: previous === 0 ? null : absolute / Math.abs(previous) };
};

/**
 * A KPI's change from its newest measurements (newest first): the newest period against the one
 * right before it. A gap between them is no "last period", so no change.
 */
export const kpiChange = (
  period: KpiPeriod,
  newestFirst: readonly (PeriodSpan & { actual: number })[],
): Change | null => {
  const [newest, before] = newestFirst;
  if (!newest || !before || !isWholePeriod(period, before)) return null;
  const follows = nextPeriod(period, before);
  if (follows.periodStart !== newest.periodStart || follows.periodEnd !== newest.periodEnd) return null;
  return changeSinceLastPeriod(newest.actual, before.actual);
};

/** How much a change moved: its relative size, a change without a ratio above every ratio, none last. */
const magnitude = (change: Change | null): number => {
  if (change === null) return -1;
  if (change.relative === null) return change.absolute === 0 ? 0 : Number.POSITIVE_INFINITY;
  return Math.abs(change.relative);
};

/**
 * Orders KPIs by how much they changed since the last period, the largest relative change first
 * (rises and falls alike); KPIs without a change last. Stable: equal ones keep their order.
 */
export const byChange = <T extends { change: Change | null }>(items: readonly T[]): T[] =>
  [...items].sort((a, b) => {
    const [x, y] = [magnitude(a.change), magnitude(b.change)];
    return x === y ? 0 : y - x;
  });
