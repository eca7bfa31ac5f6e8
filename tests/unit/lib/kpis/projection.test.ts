import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../../../lib/domain/measurement';
import { nextPeriod } from '../../../../lib/domain/period';
import type { StrategicCycle } from '../../../../lib/domain/strategic-cycle';
import { historyOf, horizonOf, standingTarget } from '../../../../lib/kpis/projection';

const m = (periodStart: string, periodEnd: string, actual: number, target: number | null = null) =>
  ({ periodStart, periodEnd, actual, target }) as Measurement;
const cycle = (id: string, startDate: string, endDate: string) =>
  ({ id, name: id, startDate, endDate, createdAt: '2026-01-01T00:00:00.000Z' }) as StrategicCycle;

describe('the history a projection is fitted on', () => {
  it('is the newest run of consecutive whole periods, oldest first', () => {
    const newestFirst = [
      m('2026-03-01', '2026-03-31', 3),
      m('2026-02-01', '2026-02-28', 2),
      m('2026-01-01', '2026-01-31', 1),
      // A gap: December is missing, so November and before are not part of the run.
      m('2025-11-01', '2025-11-30', 0),
    ];
    expect(historyOf('month', newestFirst).map((x) => x.actual)).toEqual([1, 2, 3]);
  });

  it('ends at a measurement that is not one whole period of the KPI', () => {
    const newestFirst = [m('2026-03-01', '2026-03-31', 3), m('2026-02-01', '2026-02-14', 2)];
    expect(historyOf('month', newestFirst).map((x) => x.actual)).toEqual([3]);
    expect(historyOf('month', [])).toEqual([]);
  });

  it('follows the KPI period: consecutive ISO weeks', () => {
    const newestFirst = [m('2026-01-12', '2026-01-18', 2), m('2026-01-05', '2026-01-11', 1)];
    expect(historyOf('week', newestFirst).map((x) => x.actual)).toEqual([1, 2]);
    expect(historyOf('month', newestFirst)).toEqual([]);
  });
});

describe('the target a projection is measured against', () => {
  it('is the newest measurement’s target that has one', () => {
    expect(
      standingTarget([
        m('2026-03-01', '2026-03-31', 3),
        m('2026-02-01', '2026-02-28', 2, 40),
        m('2026-01-01', '2026-01-31', 1, 30),
      ]),
    ).toBe(40);
    expect(standingTarget([m('2026-03-01', '2026-03-31', 3)])).toBeNull();
  });
});

describe('how far a projection runs', () => {
  const april = { periodStart: '2026-04-01', periodEnd: '2026-04-30' };
  it('runs the periods asked for, at most 24', () => {
    expect(horizonOf('month', april, [], 3)).toEqual({ count: 3, until: 'requested', cycleId: null });
    expect(horizonOf('month', april, [], 99).count).toBe(24);
  });

  it('runs to the end of the cycle that holds the first period, the soonest ending if several', () => {
    const cycles = [
      cycle('long', '2026-01-01', '2027-12-31'),
      cycle('half', '2026-01-01', '2026-06-30'),
      cycle('later', '2026-05-01', '2026-05-31'),
    ];
    expect(horizonOf('month', april, cycles, undefined)).toEqual({
      count: 3,
      until: 'cycle',
      cycleId: 'half',
    });
    expect(
      horizonOf('quarter', { periodStart: '2026-04-01', periodEnd: '2026-06-30' }, cycles, undefined).count,
    ).toBe(1);
  });

  it('runs to the end of the calendar year without a cycle, at most 24 periods', () => {
    expect(horizonOf('month', april, [cycle('past', '2025-01-01', '2025-12-31')], undefined)).toEqual({
      count: 9,
      until: 'year',
      cycleId: null,
    });
    expect(
      horizonOf('year', { periodStart: '2026-01-01', periodEnd: '2026-12-31' }, [], undefined).count,
    ).toBe(1);
    expect(
      horizonOf('day', { periodStart: '2026-04-01', periodEnd: '2026-04-01' }, [], undefined).count,
    ).toBe(24);
  });

  it('steps period by period', () => {
    expect(nextPeriod('month', { periodStart: '2026-01-01', periodEnd: '2026-01-31' })).toEqual({
      periodStart: '2026-02-01',
      periodEnd: '2026-02-28',
    });
    expect(nextPeriod('week', { periodStart: '2025-12-29', periodEnd: '2026-01-04' })).toEqual({
      periodStart: '2026-01-05',
      periodEnd: '2026-01-11',
    });
    expect(nextPeriod('quarter', { periodStart: '2026-10-01', periodEnd: '2026-12-31' })).toEqual({
      periodStart: '2027-01-01',
      periodEnd: '2027-03-31',
    });
  });
});
