import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../../../lib/domain/measurement';
import { kpiActivity, usualIntervalDays } from '../../../../lib/kpis/activity';

const DAY_MS = 86_400_000;
const NOW = Date.parse('2026-11-22T12:00:00Z');

/** A stored record of one period, received `receivedDaysAgo` days before NOW. */
const record = (
  periodStart: string,
  periodEnd: string,
  receivedDaysAgo: number | null,
  actual = 1,
): Measurement => ({
  id: `${periodStart}-${periodEnd}`,
  kpiId: 'k',
  kpiType: 'BSC_KPI',
  actual,
  target: 2,
  forecast: null,
  periodStart,
  periodEnd,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  receivedAt: receivedDaysAgo === null ? null : new Date(NOW - receivedDaysAgo * DAY_MS).toISOString(),
  apiKeyId: 'key',
  apiKeyPrefix: 'skm_abcd',
});

/** Monthly periods of 2026, newest first, as the Query returns them. */
const months = (from: number, to: number, receivedDaysAgo: (month: number) => number) =>
  Array.from({ length: to - from + 1 }, (_, i) => to - i).map((month) => {
    const mm = String(month).padStart(2, '0');
    const last = new Date(Date.UTC(2026, month, 0)).getUTCDate();
    return record(`2026-${mm}-01`, `2026-${mm}-${last}`, receivedDaysAgo(month));
  });

describe('usualIntervalDays: the median gap between consecutive period starts', () => {
  it('is the median, not the mean: one long gap does not move it', () => {
    const starts = ['2026-01-01', '2026-01-08', '2026-01-15', '2026-03-01', '2026-03-08'];
    expect(usualIntervalDays(starts.map((d) => ({ periodStart: d, periodEnd: d })))).toBe(7);
  });

  it('averages the two middle gaps for an even count', () => {
    const starts = ['2026-01-01', '2026-01-02', '2026-01-05', '2026-01-10', '2026-01-20'];
    // gaps 1, 3, 5, 10 → (3 + 5) / 2
    expect(usualIntervalDays(starts.map((d) => ({ periodStart: d, periodEnd: d })))).toBe(4);
  });

  it('counts two periods starting on the same day as one start', () => {
    const periods = [
      { periodStart: '2026-01-01', periodEnd: '2026-01-31' },
      { periodStart: '2026-01-01', periodEnd: '2026-01-07' },
      { periodStart: '2026-02-01', periodEnd: '2026-02-28' },
    ];
    expect(usualIntervalDays(periods)).toBe(31);
  });

  it("uses the only period's length when there is no gap yet, and null without periods", () => {
    expect(usualIntervalDays([{ periodStart: '2026-02-01', periodEnd: '2026-02-28' }])).toBe(28);
    expect(usualIntervalDays([{ periodStart: '2026-02-01', periodEnd: '2026-02-01' }])).toBe(1);
    expect(usualIntervalDays([])).toBeNull();
  });
});

describe('kpiActivity: quiet after more than twice the usual interval, or without data', () => {
  it('a KPI without measurements is quiet', () => {
    expect(kpiActivity([], NOW)).toEqual({
      latest: null,
      recent: [],
      lastReceivedAt: null,
      usualIntervalDays: null,
      quiet: true,
    });
  });

  it('monthly data received 10 days ago is not quiet; the latest is the newest period', () => {
    const recent = months(3, 10, (month) => (10 - month) * 30 + 10);
    const activity = kpiActivity(recent, NOW);
    expect(activity.quiet).toBe(false);
    expect(activity.latest).toEqual(recent[0]);
    expect(activity.lastReceivedAt).toBe(recent[0]?.receivedAt);
    expect(activity.recent.map((p) => p.periodStart)).toEqual(recent.map((m) => m.periodStart));
    expect(activity.recent[0]).toEqual({
      periodStart: '2026-10-01',
      periodEnd: '2026-10-31',
      actual: 1,
      target: 2,
      forecast: null,
    });
  });

  it('the boundary: exactly twice the usual interval is not quiet, a moment later is', () => {
    // Weekly starts: usual interval 7 days.
    const weekly = [
      record('2026-11-08', '2026-11-14', 14),
      record('2026-11-01', '2026-11-07', 21),
      record('2026-10-25', '2026-10-31', 28),
    ];
    expect(kpiActivity(weekly, NOW).usualIntervalDays).toBe(7);
    expect(kpiActivity(weekly, NOW).quiet).toBe(false);
    expect(kpiActivity(weekly, NOW + 1).quiet).toBe(true);
  });

  it('monthly data that stopped five months ago is quiet', () => {
    const stopped = months(1, 6, () => 150);
    const activity = kpiActivity(stopped, NOW);
    expect(activity.usualIntervalDays).toBeGreaterThanOrEqual(28);
    expect(activity.usualIntervalDays).toBeLessThanOrEqual(31);
    expect(activity.quiet).toBe(true);
  });

  it('a re-push of an older period counts as arrival: the newest receivedAt wins, not the newest period', () => {
    const recent = [record('2026-11-08', '2026-11-14', 40), record('2026-11-01', '2026-11-07', 1)];
    const activity = kpiActivity(recent, NOW);
    expect(activity.lastReceivedAt).toBe(recent[1]?.receivedAt);
    expect(activity.quiet).toBe(false);
  });

  it('a record without receivedAt (written before push kept it) counts as received when last updated', () => {
    const old = {
      ...record('2026-10-01', '2026-10-31', null),
      updatedAt: new Date(NOW - DAY_MS).toISOString(),
    };
    const activity = kpiActivity([old], NOW);
    expect(activity.lastReceivedAt).toBe(old.updatedAt);
    expect(activity.quiet).toBe(false);
  });
});
