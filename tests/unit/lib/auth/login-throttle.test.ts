import { describe, expect, it } from 'vitest';
import {
  type Counters,
  delayAfter,
  judge,
  type LoginThrottlePolicy,
  sourceOf,
  tooManyAttempts,
} from '../../../../lib/auth/login-throttle';

const policy: LoginThrottlePolicy = {
  windowSeconds: 900,
  maxFailures: 10,
  maxFailuresPerSource: 100,
  emailCeiling: 1000,
  newDeviceAttemptsPerMinute: 10,
  freeFailures: 3,
};
const NOW = 1_800_000_000_000;
const counter = (count: number, { retryAt = 0, windowStart = NOW - 60_000 } = {}) => ({
  count,
  retryAt,
  windowStart,
  windowEndsAt: windowStart + 900_000,
});
const none: Counters = { fromSource: undefined, ofSource: undefined, ofEmail: undefined };

describe('the source of an attempt', () => {
  it('is an IPv4 address as it is, an IPv6 address as its /64, anything else one shared source', () => {
    expect(sourceOf('198.51.100.7')).toBe('198.51.100.7');
    expect(sourceOf(' 198.51.100.7 ')).toBe('198.51.100.7');
    expect(sourceOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:0DB8:0001:0002::ffff')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    // Groups after the gap count from the right: the fourth group here is the gap's last.
    expect(sourceOf('2001:db8::1:2:3:4:5')).toBe('2001:db8:0:1::/64');
    expect(sourceOf('2001::1:2:3:4:5:6')).toBe('2001:0:1:2::/64');
    expect(sourceOf('::1')).toBe('0:0:0:0::/64');
    expect(sourceOf('::ffff:198.51.100.7')).toBe('0:0:0:0::/64');
    expect(sourceOf('fe80:1:2:3::')).toBe('fe80:1:2:3::/64');
    expect(sourceOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    for (const other of [undefined, null, '', 'localhost', '999.1.1.1', '1.2.3', 'x'.repeat(3000)]) {
      expect(sourceOf(other)).toBe('unknown');
    }
  });
});

describe('the progressive delay', () => {
  it('is free for the first failures, then 1 s and twice as long after each further one, at most a window', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 9].map((failures) => delayAfter(failures, policy))).toEqual([
      0, 0, 0, 0, 1000, 2000, 4000, 8000, 32_000,
    ]);
    expect(delayAfter(30, policy)).toBe(900_000);
    expect(delayAfter(2, { ...policy, freeFailures: 1 })).toBe(1000);
  });
});

describe('judging an attempt from its counters', () => {
  it('admits an attempt without counters, or below every limit and past every delay', () => {
    expect(judge(none, policy, NOW)).toEqual({ refusal: undefined, admission: 'open' });
    expect(
      judge(
        { fromSource: counter(9, { retryAt: NOW }), ofSource: counter(99), ofEmail: counter(999) },
        policy,
        NOW,
      ),
    ).toEqual({ refusal: undefined, admission: 'open' });
  });

  it('refuses a source at its limit over all e-mails until its window ends', () => {
    expect(judge({ ...none, ofSource: counter(100) }, policy, NOW).refusal).toEqual({
      retryAfterMs: 840_000,
      detail: 'Too many failed logins from this address.',
    });
  });

  it('refuses a source at its limit for the e-mail until its window ends', () => {
    expect(judge({ ...none, fromSource: counter(10) }, policy, NOW).refusal).toEqual({
      retryAfterMs: 840_000,
      detail: 'Too many failed logins for this e-mail from this address.',
    });
  });

  it('never asks for a wait longer than a window, even when the window opened after the attempt read its clock', () => {
    const opened = counter(10, { windowStart: NOW + 1500 });
    expect(judge({ ...none, fromSource: opened }, policy, NOW).refusal?.retryAfterMs).toBe(900_000);
    expect(
      judge({ ...none, ofSource: counter(100, { windowStart: NOW + 1 }) }, policy, NOW).refusal?.retryAfterMs,
    ).toBe(900_000);
  });

  it('refuses a source while its delay runs, for the time left', () => {
    expect(judge({ ...none, fromSource: counter(5, { retryAt: NOW + 1 }) }, policy, NOW).refusal).toEqual({
      retryAfterMs: 1,
      detail: 'Wait before the next login for this e-mail from this address.',
    });
  });

  it('past the ceiling, lets a device token of the account in as before, and every other attempt share the minute’s new-device attempts', () => {
    const ofEmail = counter(1000, { windowStart: NOW - 600_000 });
    // Below the ceiling, a device token changes nothing, nor do its failures.
    for (const device of [undefined, counter(10)]) {
      expect(
        judge({ ...none, ofEmail: counter(999), device }, policy, NOW, { deviceOfAccount: true }),
      ).toEqual({
        refusal: undefined,
        admission: 'open',
      });
    }
    // Past it: with a device token of the account, the per-source rules alone, even for a source that failed.
    expect(
      judge({ ...none, ofEmail, fromSource: counter(5) }, policy, NOW, { deviceOfAccount: true }),
    ).toEqual({ refusal: undefined, admission: 'device' });
    // Without one (or with a token of another account), a new device: admitted while the minute has room.
    const minute = (count: number) => counter(count, { windowStart: NOW - 15_000 });
    for (const options of [{}, { deviceOfAccount: false }]) {
      expect(judge({ ...none, ofEmail, newDevices: minute(9) }, policy, NOW, options)).toEqual({
        refusal: undefined,
        admission: 'new-device',
      });
    }
    // The minute is full: refused until its window ends (a minute from its first attempt), from any source.
    expect(
      judge({ ...none, ofEmail, newDevices: { ...minute(10), windowEndsAt: NOW + 45_000 } }, policy, NOW),
    ).toEqual({
      admission: 'new-device',
      refusal: {
        retryAfterMs: 45_000,
        detail:
          'Too many failed logins for this e-mail: a device that has not signed in to it waits its turn.',
      },
    });
    // A device token that failed `maxFailures` times past the ceiling is a new device again: admitted
    // while the minute has room, whatever its own failures.
    expect(
      judge({ ...none, ofEmail, device: counter(10), newDevices: minute(9) }, policy, NOW, {
        deviceOfAccount: true,
      }),
    ).toEqual({ refusal: undefined, admission: 'new-device' });
    expect(
      judge(
        { ...none, ofEmail, device: counter(10), newDevices: { ...minute(10), windowEndsAt: NOW + 45_000 } },
        policy,
        NOW,
        {
          deviceOfAccount: true,
        },
      ).admission,
    ).toBe('new-device');
    expect(judge({ ...none, ofEmail, device: counter(9) }, policy, NOW, { deviceOfAccount: true })).toEqual({
      refusal: undefined,
      admission: 'device',
    });
    // Judged again after a lost race, as a device: the token's own limit refuses.
    expect(
      judge({ ...none, ofEmail, device: counter(10) }, policy, NOW, { admission: 'device' }).refusal,
    ).toEqual({ retryAfterMs: 840_000, detail: 'Too many failed logins for this e-mail from this device.' });
    // The per-source rules still come first.
    expect(
      judge({ ...none, ofEmail, fromSource: counter(10) }, policy, NOW, { deviceOfAccount: true }).refusal
        ?.detail,
    ).toBe('Too many failed logins for this e-mail from this address.');
  });

  it('names the limit that refused first: the source over all e-mails, then for this e-mail, then the delay', () => {
    const all = {
      ofSource: counter(100),
      fromSource: counter(10, { retryAt: NOW + 5 }),
      ofEmail: counter(1000),
    };
    expect(judge(all, policy, NOW).refusal?.detail).toBe('Too many failed logins from this address.');
    expect(judge({ ...all, ofSource: undefined }, policy, NOW).refusal?.detail).toBe(
      'Too many failed logins for this e-mail from this address.',
    );
    expect(
      judge({ ...all, ofSource: undefined, fromSource: counter(9, { retryAt: NOW + 5 }) }, policy, NOW)
        .refusal?.detail,
    ).toBe('Wait before the next login for this e-mail from this address.');
  });
});

describe('the 429', () => {
  it('carries Retry-After in whole seconds, rounded up, at least 1', () => {
    for (const [ms, seconds] of [
      [1, '1'],
      [0, '1'],
      [-5, '1'],
      [1000, '1'],
      [1001, '2'],
      [840_000, '840'],
    ] as const) {
      const error = tooManyAttempts({ retryAfterMs: ms, detail: 'Slow down.' });
      expect(error.code).toBe('TOO_MANY_LOGIN_ATTEMPTS');
      expect(error.headers).toEqual({ 'Retry-After': seconds });
      expect(error.message).toBe(
        `Slow down. Try again in ${seconds} ${seconds === '1' ? 'second' : 'seconds'}.`,
      );
    }
  });
});
