import { describe, expect, it } from 'vitest';
import type { PullSchedule } from '../../../../lib/domain/pull-integration';
import { backoffMs, DAY_MS, nextRunAfter, nextSlot } from '../../../../lib/pull/schedule';

const at = (iso: string) => Date.parse(iso);
const next = (schedule: PullSchedule, iso: string) => new Date(nextSlot(schedule, at(iso))).toISOString();

describe('the slots of each schedule unit (UTC)', () => {
  it('15m: the next quarter hour, strictly after', () => {
    expect(next({ every: '15m' }, '2026-11-27T10:07:12.000Z')).toBe('2026-11-27T10:15:00.000Z');
    expect(next({ every: '15m' }, '2026-11-27T10:15:00.000Z')).toBe('2026-11-27T10:30:00.000Z');
    expect(next({ every: '15m' }, '2026-11-27T23:59:59.999Z')).toBe('2026-11-28T00:00:00.000Z');
  });

  it('hour: the next full hour', () => {
    expect(next({ every: 'hour' }, '2026-11-27T10:00:00.000Z')).toBe('2026-11-27T11:00:00.000Z');
    expect(next({ every: 'hour' }, '2026-11-27T10:59:00.000Z')).toBe('2026-11-27T11:00:00.000Z');
  });

  it('day: today at `at` if still ahead, else tomorrow; 00:00 without `at`', () => {
    expect(next({ every: 'day', at: '06:30' }, '2026-11-27T05:00:00.000Z')).toBe('2026-11-27T06:30:00.000Z');
    expect(next({ every: 'day', at: '06:30' }, '2026-11-27T06:30:00.000Z')).toBe('2026-11-28T06:30:00.000Z');
    expect(next({ every: 'day' }, '2026-11-27T05:00:00.000Z')).toBe('2026-11-28T00:00:00.000Z');
  });

  it('week: Mondays at `at`', () => {
    // 2026-11-27 is a Friday; 2026-11-30 a Monday.
    expect(next({ every: 'week', at: '08:00' }, '2026-11-27T12:00:00.000Z')).toBe('2026-11-30T08:00:00.000Z');
    expect(next({ every: 'week', at: '08:00' }, '2026-11-30T07:59:00.000Z')).toBe('2026-11-30T08:00:00.000Z');
    expect(next({ every: 'week', at: '08:00' }, '2026-11-30T08:00:00.000Z')).toBe('2026-12-07T08:00:00.000Z');
    expect(next({ every: 'week' }, '2026-11-29T23:00:00.000Z')).toBe('2026-11-30T00:00:00.000Z');
  });

  it('month: the 1st at `at`, across a year', () => {
    expect(next({ every: 'month', at: '02:00' }, '2026-11-27T12:00:00.000Z')).toBe(
      '2026-12-01T02:00:00.000Z',
    );
    expect(next({ every: 'month', at: '02:00' }, '2026-12-01T01:00:00.000Z')).toBe(
      '2026-12-01T02:00:00.000Z',
    );
    expect(next({ every: 'month' }, '2026-12-15T00:00:00.000Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(next({ every: 'month', at: '02:00' }, '2026-12-01T02:00:00.000Z')).toBe(
      '2027-01-01T02:00:00.000Z',
    );
  });
});

describe('back-off of a failing integration', () => {
  it('none before the third failure in a row: the next slot', () => {
    expect(backoffMs({ every: '15m' }, 1)).toBeUndefined();
    expect(backoffMs({ every: '15m' }, 2)).toBeUndefined();
    const finished = at('2026-11-27T10:07:00.000Z');
    expect(nextRunAfter({ every: '15m' }, finished, 2)).toBe(at('2026-11-27T10:15:00.000Z'));
  });

  it('from the third failure twice the interval, doubling, up to a day', () => {
    const quarter = 15 * 60_000;
    expect([3, 4, 5, 6, 7, 8, 9, 10].map((n) => backoffMs({ every: '15m' }, n))).toEqual([
      2 * quarter,
      4 * quarter,
      8 * quarter,
      16 * quarter,
      32 * quarter,
      64 * quarter,
      DAY_MS,
      DAY_MS,
    ]);
    expect(backoffMs({ every: 'hour' }, 3)).toBe(2 * 3_600_000);
    const finished = at('2026-11-27T10:07:00.000Z');
    expect(nextRunAfter({ every: '15m' }, finished, 3)).toBe(finished + 2 * quarter);
  });

  it('a schedule of a day or longer keeps its interval: backing off never runs more often', () => {
    expect(backoffMs({ every: 'day' }, 5)).toBe(DAY_MS);
    expect(backoffMs({ every: 'week' }, 5)).toBe(7 * DAY_MS);
    expect(backoffMs({ every: 'month' }, 5)).toBe(31 * DAY_MS);
  });
});
