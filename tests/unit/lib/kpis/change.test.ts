import { describe, expect, it } from 'vitest';
import { byChange, type Change, changeSinceLastPeriod, kpiChange } from '../../../../lib/kpis/change';

describe('change since the last period', () => {
  it('gives the previous value and the absolute and relative difference', () => {
    expect(changeSinceLastPeriod(125, 100)).toEqual({ previous: 100, absolute: 25, relative: 0.25 });
    expect(changeSinceLastPeriod(80, 100)).toEqual({ previous: 100, absolute: -20, relative: -0.2 });
    expect(changeSinceLastPeriod(7, 7)).toEqual({ previous: 7, absolute: 0, relative: 0 });
  });

  it('measures the relative difference against the size of a negative previous value', () => {
    // From −10 to −5 is a rise of 5, half the previous value's size.
    expect(changeSinceLastPeriod(-5, -10)).toEqual({ previous: -10, absolute: 5, relative: 0.5 });
    expect(changeSinceLastPeriod(-15, -10)).toEqual({ previous: -10, absolute: -5, relative: -0.5 });
  });

  it('has no ratio from zero, and no change without a previous period', () => {
    expect(changeSinceLastPeriod(3, 0)).toEqual({ previous: 0, absolute: 3, relative: null });
    expect(changeSinceLastPeriod(3, undefined)).toBeNull();
  });
});

describe('a KPI’s change', () => {
  const jan = { periodStart: '2026-01-01', periodEnd: '2026-01-31' };
  const feb = { periodStart: '2026-02-01', periodEnd: '2026-02-28' };
  const mar = { periodStart: '2026-03-01', periodEnd: '2026-03-31' };
  it('is the newest period against the one right before it', () => {
    expect(
      kpiChange('month', [
        { ...mar, actual: 12 },
        { ...feb, actual: 10 },
        { ...jan, actual: 1 },
      ]),
    ).toEqual({
      previous: 10,
      absolute: 2,
      relative: 0.2,
    });
  });

  it('is null after a gap, and with fewer than two periods', () => {
    expect(
      kpiChange('month', [
        { ...mar, actual: 12 },
        { ...jan, actual: 10 },
      ]),
    ).toBeNull();
    expect(kpiChange('month', [{ ...mar, actual: 12 }])).toBeNull();
    expect(kpiChange('month', [])).toBeNull();
    // A day before a month is no previous month.
    expect(
      kpiChange('month', [
        { ...mar, actual: 12 },
        { periodStart: '2026-02-28', periodEnd: '2026-02-28', actual: 1 },
      ]),
    ).toBeNull();
  });

  it('sorts by the size of the relative change, rises and falls alike, none last, ties kept in order', () => {
    const item = (name: string, change: Change | null) => ({ name, change });
    const sorted = byChange([
      item('none', null),
      item('small rise', { previous: 100, absolute: 5, relative: 0.05 }),
      item('big fall', { previous: 100, absolute: -50, relative: -0.5 }),
      item('from zero', { previous: 0, absolute: 3, relative: null }),
      item('flat from zero', { previous: 0, absolute: 0, relative: null }),
      item('small fall', { previous: 100, absolute: -5, relative: -0.05 }),
      item('also none', null),
    ]);
    expect(sorted.map((i) => i.name)).toEqual([
      'from zero',
      'big fall',
      'small rise',
      'small fall',
      'flat from zero',
      'none',
      'also none',
    ]);
  });
});
