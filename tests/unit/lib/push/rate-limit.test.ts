import { describe, expect, it } from 'vitest';
import { decide, windowStart } from '../../../../lib/push/rate-limit';

const settings = { windowSeconds: 60, perPlan: { free: 60, business: 300, enterprise: 3000 } };
const START = 1_800_000_000;

describe('the rate-limit decision', () => {
  it('admits up to the limit; past it, Remaining 0 and Retry-After equal to Reset', () => {
    expect(decide(60, 'free', settings, START * 1000)).toEqual({
      admitted: true,
      headers: { 'RateLimit-Limit': '60', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '60' },
    });
    expect(decide(1, 'business', settings, START * 1000).headers['RateLimit-Remaining']).toBe('299');
    expect(decide(61, 'free', settings, (START + 45.5) * 1000)).toEqual({
      admitted: false,
      headers: {
        'RateLimit-Limit': '60',
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': '15',
        'Retry-After': '15',
      },
    });
  });

  it('Reset names the counted window: it ends within the second before countedAt + Reset', () => {
    for (const offsetMs of [0, 1, 999, 1000, 30_500, 58_999, 59_000, 59_001, 59_999]) {
      const countedAt = START * 1000 + offsetMs;
      const reset = Number(decide(1, 'free', settings, countedAt).headers['RateLimit-Reset']);
      const end = windowStart(countedAt, 60) + 60;
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
      expect(end).toBeGreaterThan(countedAt / 1000 + reset - 1);
      expect(end).toBeLessThanOrEqual(countedAt / 1000 + reset);
    }
  });
});
