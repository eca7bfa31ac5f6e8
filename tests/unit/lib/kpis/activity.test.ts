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
  integrationId: null,
  integrationName: null,
  replaced: null,
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

describe('kpiActivity: the newest periods, newest first, and their usual interval', () => {
  it('a KPI without measurements has no latest, no recent values and no interval', () => {
    expect(kpiActivity([])).toEqual({ latest: null, recent: [], usualIntervalDays: null });
  });

  it('monthly data: the latest is the newest period, the values follow the Query order', () => {
    const recent = months(3, 10, (month) => (10 - month) * 30 + 10);
    const activity = kpiActivity(recent);
    expect(activity.latest).toEqual(recent[0]);
    expect(activity.usualIntervalDays).toBeGreaterThanOrEqual(28);
    expect(activity.usualIntervalDays).toBeLessThanOrEqual(31);
    expect(activity.recent.map((p) => p.periodStart)).toEqual(recent.map((m) => m.periodStart));
    expect(activity.recent[0]).toEqual({
      periodStart: '2026-10-01',
      periodEnd: '2026-10-31',
      actual: 1,
      target: 2,
      forecast: null,
    });
  });

  it('says nothing of quiet: that is the cadence rule’s (lib/kpis/quiet.ts)', () => {
    expect(Object.keys(kpiActivity(months(1, 2, () => 400)))).toEqual([
      'latest',
      'recent',
      'usualIntervalDays',
    ]);
  });
});
