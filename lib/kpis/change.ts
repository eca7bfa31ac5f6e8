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

/** The change from `previous` to `current`; null without a previous period. */
export const changeSinceLastPeriod = (current: number, previous: number | undefined): Change | null => {
  if (previous === undefined) return null;
  const absolute = current - previous;
  return { previous, absolute, relative: previous === 0 ? null : absolute / Math.abs(previous) };
};
