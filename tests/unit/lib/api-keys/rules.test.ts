import { describe, expect, it } from 'vitest';
import {
  API_KEY_LIMITS,
  apiKeyStatus,
  assertChangeable,
  assertGracePeriod,
  assertRollable,
  assertSlotFree,
  holdsSlot,
  inGracePeriodOf,
  instant,
  ROLL_GRACE_HOURS,
  rollExpiries,
} from '../../../../lib/api-keys/rules';
import type { ApiKey } from '../../../../lib/domain/api-key';
import { refusalOf } from '../../../support/refusal';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const at = (ms: number) => new Date(ms).toISOString();

const key = (overrides: Partial<ApiKey> = {}): ApiKey => ({
  id: '01937a55-0c4e-7b1d-a2f3-6e7d8c9b0a1f',
  tenantId: '01936c00-0a1b-7c2d-8e3f-405162738495',
  name: 'Nightly cron',
  prefix: 'skm_P97W',
  createdAt: at(NOW - 10 * 24 * HOUR),
  expiresAt: null,
  lastUsedAt: null,
  revokedAt: null,
  kpiIds: null,
  allowedSources: null,
  createdBy: null,
  revokedBy: null,
  rolledAt: null,
  rolledBy: null,
  replacedBy: null,
  replaces: null,
  ...overrides,
});

describe('a key’s status (spec 3)', () => {
  it('is expired from the instant of its expiration on, active until then', () => {
    expect(apiKeyStatus(key({ expiresAt: at(NOW) }), NOW)).toBe('expired');
    expect(apiKeyStatus(key({ expiresAt: at(NOW + 1) }), NOW)).toBe('active');
    expect(apiKeyStatus(key({ expiresAt: at(NOW - 1) }), NOW)).toBe('expired');
    expect(apiKeyStatus(key(), NOW)).toBe('active');
  });

  it('is revoked once revoked, whatever its expiration', () => {
    expect(apiKeyStatus(key({ revokedAt: at(NOW), expiresAt: at(NOW + HOUR) }), NOW)).toBe('revoked');
    expect(apiKeyStatus(key({ revokedAt: at(NOW), expiresAt: at(NOW - HOUR) }), NOW)).toBe('revoked');
  });
});

describe('who holds a slot of the plan’s maximum', () => {
  it('an active key that was not rolled; not a rolled, revoked, expired or missing one', () => {
    expect(holdsSlot(key(), NOW)).toBe(true);
    expect(holdsSlot(key({ replacedBy: { id: 'k2', prefix: 'skm_7Qx2' } }), NOW)).toBe(false);
    expect(holdsSlot(key({ revokedAt: at(NOW) }), NOW)).toBe(false);
    expect(holdsSlot(key({ expiresAt: at(NOW) }), NOW)).toBe(false);
    expect(holdsSlot(undefined, NOW)).toBe(false);
  });

  it('a plan is full when its holders reach its maximum (spec 8); enterprise never is', () => {
    expect(API_KEY_LIMITS).toEqual({ free: 3, business: 5, enterprise: null });
    expect(() => assertSlotFree('free', 2)).not.toThrow();
    expect(() => assertSlotFree('business', 4)).not.toThrow();
    expect(() => assertSlotFree('enterprise', 10_000)).not.toThrow();
    expect(refusalOf(() => assertSlotFree('free', 3))).toMatchObject({
      code: 'API_KEY_LIMIT_REACHED',
      message:
        'The free plan allows 3 active API keys and all 3 are in use. Revoke a key or upgrade the plan.',
      extensions: { limit: 3, plan: 'free' },
    });
    expect(refusalOf(() => assertSlotFree('business', 5))).toMatchObject({ extensions: { limit: 5 } });
  });
});

describe('rolling a key', () => {
  it('only an active key that was not rolled before', () => {
    expect(() => assertRollable(key(), NOW)).not.toThrow();
    expect(
      refusalOf(() => assertRollable(key({ replacedBy: { id: 'k2', prefix: 'skm_7Qx2' } }), NOW)),
    ).toMatchObject({
      code: 'API_KEY_ALREADY_ROLLED',
      message:
        'API key skm_P97W… was already rolled; it is replaced by skm_7Qx2… (id k2). Roll that key instead.',
      extensions: { replacedBy: { id: 'k2', prefix: 'skm_7Qx2' } },
    });
    for (const [overrides, status] of [
      [{ revokedAt: at(NOW) }, 'revoked'],
      [{ expiresAt: at(NOW) }, 'expired'],
    ] as const) {
      expect(refusalOf(() => assertRollable(key(overrides), NOW))).toMatchObject({
        code: 'API_KEY_NOT_ACTIVE',
        message: `API key skm_P97W… is ${status}; only an active key can be rolled. Create a new key instead.`,
        extensions: { keyStatus: status },
      });
    }
  });

  it('the rolled key works through its grace period while the key that replaced it is the one named', () => {
    const replacedBy = { id: 'k2', prefix: 'skm_7Qx2' };
    const rolled = (overrides: Partial<ApiKey> = {}) =>
      key({ replacedBy, expiresAt: at(NOW + HOUR), ...overrides });
    expect(inGracePeriodOf(rolled(), 'k2', NOW)).toBe(true);
    expect(inGracePeriodOf(rolled(), 'k3', NOW)).toBe(false);
    expect(inGracePeriodOf(rolled({ replacedBy: null }), 'k2', NOW)).toBe(false);
    expect(inGracePeriodOf(rolled({ revokedAt: at(NOW - 1) }), 'k2', NOW)).toBe(false);
    expect(inGracePeriodOf(rolled({ expiresAt: null }), 'k2', NOW)).toBe(false);
    expect(inGracePeriodOf(rolled({ expiresAt: at(NOW) }), 'k2', NOW)).toBe(false);
    expect(inGracePeriodOf(rolled({ expiresAt: at(NOW + 1) }), 'k2', NOW)).toBe(true);
    expect(inGracePeriodOf(undefined, 'k2', NOW)).toBe(false);
  });

  it('only an active key is changed; a stopped one keeps what it was', () => {
    expect(() => assertChangeable(key(), NOW)).not.toThrow();
    for (const [overrides, status] of [
      [{ revokedAt: at(NOW) }, 'revoked'],
      [{ expiresAt: at(NOW) }, 'expired'],
    ] as const) {
      expect(refusalOf(() => assertChangeable(key(overrides), NOW))).toMatchObject({
        code: 'API_KEY_NOT_ACTIVE',
        message: `API key skm_P97W… is ${status}; only an active key can be changed. It keeps its name and sources as they were when it stopped.`,
        extensions: { keyStatus: status },
      });
    }
  });

  it('a grace period is a whole number of hours from 0 to 168', () => {
    expect(ROLL_GRACE_HOURS).toEqual({ default: 24, max: 168 });
    for (const hours of [0, 1, 168]) expect(() => assertGracePeriod(hours)).not.toThrow();
    for (const hours of [-1, 169, 1.5, Number.NaN]) {
      expect(refusalOf(() => assertGracePeriod(hours))).toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [{ path: 'gracePeriodHours', message: 'must be a whole number of hours from 0 to 168' }],
      });
    }
  });

  it('the old key expires at the end of the grace period; the new one has no expiry when the old had none', () => {
    expect(rollExpiries(key(), NOW, 24, undefined)).toEqual({
      oldExpiresAt: at(NOW + 24 * HOUR),
      newExpiresAt: null,
    });
    expect(rollExpiries(key(), NOW, 0, undefined).oldExpiresAt).toBe(at(NOW));
  });

  it('never lengthens the old key’s life, and gives the new key the old key’s lifetime from now', () => {
    const old = key({ createdAt: at(NOW - 80 * 24 * HOUR), expiresAt: at(NOW + 10 * HOUR) });
    expect(rollExpiries(old, NOW, 24, undefined)).toEqual({
      oldExpiresAt: at(NOW + 10 * HOUR),
      newExpiresAt: at(NOW + 80 * 24 * HOUR + 10 * HOUR),
    });
    expect(rollExpiries(old, NOW, 2, undefined).oldExpiresAt).toBe(at(NOW + 2 * HOUR));
  });

  it('a requested expiry of the new key wins: a date, or null for none', () => {
    const old = key({ expiresAt: at(NOW + 10 * HOUR) });
    expect(rollExpiries(old, NOW, 24, '2027-06-30T02:00:00+02:00').newExpiresAt).toBe(
      '2027-06-30T00:00:00.000Z',
    );
    expect(rollExpiries(old, NOW, 24, null).newExpiresAt).toBeNull();
  });
});

describe('instants', () => {
  it('are kept in one form, UTC with milliseconds, so that they compare as strings', () => {
    expect(instant('2027-01-31T01:00:00+01:00')).toBe('2027-01-31T00:00:00.000Z');
    expect(instant(null)).toBeNull();
    expect(instant(undefined)).toBeNull();
  });
});
