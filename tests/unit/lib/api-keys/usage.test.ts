import { describe, expect, it } from 'vitest';
import { emptyDay, RECENT_USAGE_DAYS, recentUsage } from '../../../../lib/api-keys/usage';
import type { UsageDay } from '../../../../lib/domain/api-key-usage';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const stored = (date: string, fields: Partial<UsageDay>): UsageDay => ({ ...emptyDay(date), ...fields });

describe('a key’s last 30 days, as the key list shows them', () => {
  it('has every day from 29 days ago to today, oldest first, zeros where nothing was stored', () => {
    const { usage, lastUsedAt } = recentUsage([], NOW);
    expect(usage.days).toHaveLength(RECENT_USAGE_DAYS);
    expect(usage.days[0]).toEqual({ date: '2026-10-27', requests: 0, refused: 0 });
    expect(usage.days.at(-1)).toEqual({ date: '2026-11-25', requests: 0, refused: 0 });
    expect(usage).toMatchObject({ requests: 0, accepted: 0, refused: 0, lastRequestAt: null });
    expect(lastUsedAt).toBeNull();
  });

  it('counts a day’s refusals of every reason, and those refused at the edge (authentication, source) among its requests', () => {
    const day = stored('2026-11-24', {
      requests: 10,
      accepted: 6,
      refused: { authentication: 2, source: 3, scope: 1, rateLimit: 1, validation: 1, featureOff: 1 },
    });
    const { usage } = recentUsage([day], NOW);
    expect(usage.days.at(-2)).toEqual({ date: '2026-11-24', requests: 15, refused: 9 });
    expect(usage).toMatchObject({ requests: 15, accepted: 6, refused: 9 });
  });

  it('takes the source of the newest day with a request in the 30 days, and lastUsedAt from the whole retention', () => {
    const days = [
      stored('2026-11-25', { requests: 1, refused: { ...emptyDay('').refused, rateLimit: 1 } }),
      stored('2026-11-20', {
        requests: 1,
        accepted: 1,
        lastRequestAt: '2026-11-20T08:00:00.000Z',
        lastSourceIp: '203.0.113.7',
        lastUserAgent: 'cron/1',
      }),
      stored('2026-09-01', { accepted: 1, lastUsedAt: '2026-09-01T08:00:00.000Z' }),
    ];
    days[0]!.lastRequestAt = '2026-11-25T09:00:00.000Z';
    days[0]!.lastSourceIp = '198.51.100.9';
    const { usage, lastUsedAt } = recentUsage(days, NOW);
    expect(usage).toMatchObject({ lastRequestAt: '2026-11-25T09:00:00.000Z', lastSourceIp: '198.51.100.9' });
    // The day of 2026-09-01 is outside the 30 days: it counts for lastUsedAt only.
    expect(usage.accepted).toBe(1);
    expect(lastUsedAt).toBe('2026-09-01T08:00:00.000Z');
    // Days older than the 30 are never the last source; the first of the 30 is.
    const request = (date: string) => stored(date, { requests: 1, lastRequestAt: `${date}T01:00:00.000Z` });
    expect(recentUsage([request('2026-10-26')], NOW).usage.lastRequestAt).toBeNull();
    expect(recentUsage([request('2026-10-27')], NOW).usage.lastRequestAt).toBe('2026-10-27T01:00:00.000Z');
    // A newer day without a request of its own (only its TTL and counters were written) is passed over.
    expect(recentUsage([stored('2026-11-25', {}), request('2026-11-20')], NOW).usage.lastRequestAt).toBe(
      '2026-11-20T01:00:00.000Z',
    );
  });
});
