import type { ApiKey, ApiKeyStatus } from '../domain/api-key';
import type { Plan } from '../domain/plan';
import { AppError } from '../errors';

/**
 * The rules of API keys, as pure functions of a key and the time: its status, who holds a slot of the
 * plan's maximum, when a key may be rolled and what a roll does to both keys' expiry. The use cases
 * (./service.ts) apply them to what lib/db reads; nothing here reads or writes.
 */

/** Spec 3, 8: active API keys a tenant may hold; `null` is unlimited. */
export const API_KEY_LIMITS: Record<Plan, number | null> = { free: 3, business: 5, enterprise: null };

/** Grace period of a rolled key, in hours: the default, and the longest (7 days). */
export const ROLL_GRACE_HOURS = { default: 24, max: 168 } as const;

const HOUR_MS = 3_600_000;

/** Spec 3: active, revoked, expired. Computed, so an expiration date takes effect without any job. */
export const apiKeyStatus = (
  key: Pick<ApiKey, 'revokedAt' | 'expiresAt'>,
  now = Date.now(),
): ApiKeyStatus => {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
};

/**
 * A key holds one of the plan's slots while it is active and has not been rolled: a rolled key keeps
 * working through its grace period, but its replacement holds the slot, so a roll works at the maximum.
 */
export const holdsSlot = (key: ApiKey | undefined, now: number): boolean =>
  key !== undefined && key.replacedBy === null && apiKeyStatus(key, now) === 'active';

/**
 * A rolled key still works for its grace period, while the key that replaced it is `replacementId`:
 * revoking the replacement ends it (./service.ts `revokeApiKey`).
 */
export const inGracePeriodOf = (key: ApiKey | undefined, replacementId: string, now: number): boolean =>
  key !== undefined &&
  key.replacedBy?.id === replacementId &&
  key.revokedAt === null &&
  // Stryker disable next-line ConditionalExpression: Date.parse of null is NaN, never after now; the test is for the types
  key.expiresAt !== null &&
  Date.parse(key.expiresAt) > now;

/** Spec 8: the tenant's plan is full when its slot holders reach the plan's maximum. */
export const assertSlotFree = (plan: Plan, holders: number) => {
  const limit = API_KEY_LIMITS[plan];
  if (limit !== null && holders >= limit) {
    throw new AppError(
      'API_KEY_LIMIT_REACHED',
      `The ${plan} plan allows ${limit} active API keys and all ${limit} are in use. Revoke a key or upgrade the plan.`,
      { extensions: { limit, plan } },
    );
  }
};

/** Only an active key that was not rolled before can be rolled (revoked and expired keys are final). */
export const assertRollable = (key: ApiKey, now: number) => {
  if (key.replacedBy) {
    throw new AppError(
      'API_KEY_ALREADY_ROLLED',
      `API key ${key.prefix}… was already rolled; it is replaced by ${key.replacedBy.prefix}… (id ${key.replacedBy.id}). Roll that key instead.`,
      { extensions: { replacedBy: key.replacedBy } },
    );
  }
  const status = apiKeyStatus(key, now);
  if (status !== 'active') {
    throw new AppError(
      'API_KEY_NOT_ACTIVE',
      `API key ${key.prefix}… is ${status}; only an active key can be rolled. Create a new key instead.`,
      { extensions: { keyStatus: status } },
    );
  }
};

/**
 * Only an active key is changed (renamed, its sources set): a revoked or expired key never works
 * again, and it keeps what it was when it stopped, the record of what was revoked or had expired.
 */
export const assertChangeable = (key: ApiKey, now: number) => {
  const status = apiKeyStatus(key, now);
  if (status !== 'active') {
    throw new AppError(
      'API_KEY_NOT_ACTIVE',
      `API key ${key.prefix}… is ${status}; only an active key can be changed. It keeps its name and sources as they were when it stopped.`,
      { extensions: { keyStatus: status } },
    );
  }
};

/** A grace period is a whole number of hours from 0 to the maximum. */
export const assertGracePeriod = (hours: number) => {
  if (!Number.isInteger(hours) || hours < 0 || hours > ROLL_GRACE_HOURS.max) {
    throw new AppError('VALIDATION_FAILED', 'The grace period is invalid.', {
      errors: [
        {
          path: 'gracePeriodHours',
          message: `must be a whole number of hours from 0 to ${ROLL_GRACE_HOURS.max}`,
        },
      ],
    });
  }
};

/** Instants are kept in one form (`toISOString`), so that they also compare as strings. */
export const instant = (value: string | null | undefined): string | null =>
  value === null || value === undefined ? null : new Date(value).toISOString();

/**
 * What a roll at `now` does to both keys' expiry (Stripe's roll, Unkey's reroll). The old key expires
 * at the end of the grace period (0 hours: now), never later than it already would. The new key keeps
 * the old key's lifetime (a key that lived 90 days gets 90 days from now), unless `expiresAt` is given
 * (null: no expiration).
 */
export const rollExpiries = (
  old: Pick<ApiKey, 'createdAt' | 'expiresAt'>,
  now: number,
  graceHours: number,
  expiresAt: string | null | undefined,
) => {
  const graceEnd = now + graceHours * HOUR_MS;
  const oldExpiry = old.expiresAt ? Math.min(Date.parse(old.expiresAt), graceEnd) : graceEnd;
  const newExpiresAt =
    expiresAt !== undefined
      ? instant(expiresAt)
      : old.expiresAt
        ? new Date(now + (Date.parse(old.expiresAt) - Date.parse(old.createdAt))).toISOString()
        : null;
  return { oldExpiresAt: new Date(oldExpiry).toISOString(), newExpiresAt };
};

/**
 * A KPI-scoped key pushes only to the KPIs of its scope: the requested KPI ids outside it, once each,
 * whatever their case (none for an unscoped key).
 */
export const outsideScope = (scope: readonly string[] | null, requested: readonly string[]): string[] => {
  if (scope === null) return [];
  const allowed = new Set(scope);
  return [...new Set(requested.filter((id) => !allowed.has(id.toLowerCase())))];
};
