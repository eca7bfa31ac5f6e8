import * as z from 'zod/mini';
import { id, timestamp } from './values';

/**
 * The most KPIs a key's scope may name. The scope is stored in 16 bytes per KPI (lib/db/key-scope.ts),
 * which keeps the key item under 4 KB with the longest name and every audit attribute, so the push's
 * strongly consistent read of the key stays one read unit.
 */
export const MAX_SCOPE_KPIS = 100;

/** Spec 3: a key is active, revoked or expired; derived from the key (lib/api-keys/rules.ts), never stored. */
export const API_KEY_STATUSES = ['active', 'revoked', 'expired'] as const;
export const apiKeyStatusSchema = z.enum(API_KEY_STATUSES);
export type ApiKeyStatus = z.output<typeof apiKeyStatusSchema>;

/**
 * Who changed a key: a signed-in user of the tenant (API, key page), an operator (the operator CLI,
 * by their name), or secret scanning, which revokes a key found in public (GitHub's report names the
 * public URL where it was found; empty when GitHub gives none). A user's e-mail is not stored with the
 * key: it is looked up when keys are listed (null when the user is gone or it was not looked up).
 */
export const actorSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user'), userId: z.string(), email: z.optional(z.nullable(z.string())) }),
  z.object({ type: z.literal('operator'), name: z.string() }),
  z.object({ type: z.literal('secret-scanning'), source: z.literal('github'), url: z.string() }),
]);
export type Actor = z.output<typeof actorSchema>;

/** A key's neighbour in a roll: the key that replaced it, or the one it replaces. */
export const keyRefSchema = z
  .object({ id, prefix: z.string().check(z.describe('The first 8 characters of that key.')) })
  .check(z.meta({ id: 'KeyRef', description: 'A key’s neighbour in a roll.' }));
export type KeyRef = z.output<typeof keyRefSchema>;

/**
 * An API key of a tenant (spec 2.7). The raw key is never part of it (shown once, at creation), nor
 * its hash, which is the key's storage address.
 */
const TIMESTAMP = 'ISO 8601 date-time, UTC.';

export const apiKeySchema = z.object({
  id,
  tenantId: id,
  name: z.string(),
  /** The identification prefix: the first 8 characters of the raw key. */
  prefix: z.string().check(z.describe('The first 8 characters of the key, to recognise it.')),
  createdAt: timestamp.check(z.describe(TIMESTAMP)),
  expiresAt: z
    .nullable(timestamp)
    .check(
      z.describe(
        `When the key stops working; \`null\` = never. A rolled key’s is the end of its grace period. ${TIMESTAMP}`,
      ),
    ),
  /** Spec 2.7: updated on each successful request made with the key. */
  lastUsedAt: z
    .nullable(timestamp)
    .check(z.describe(`Last successful push with the key; \`null\` = never used. ${TIMESTAMP}`)),
  revokedAt: z
    .nullable(timestamp)
    .check(z.describe(`When it was revoked; \`null\` = not revoked. ${TIMESTAMP}`)),
  /** The KPIs the key may push to; null: every KPI of the tenant. */
  kpiIds: z
    .nullable(z.array(id).check(z.maxLength(MAX_SCOPE_KPIS)))
    .check(z.describe('The KPIs the key may push to; `null` = every KPI of the tenant.')),
  createdBy: z.nullable(actorSchema),
  revokedBy: z.nullable(actorSchema),
  /** Set when the key was rolled: it keeps working until `expiresAt`, the end of its grace period. */
  rolledAt: z
    .nullable(timestamp)
    .check(z.describe(`When the key was rolled; \`null\` = not rolled. ${TIMESTAMP}`)),
  rolledBy: z.nullable(actorSchema),
  replacedBy: z
    .nullable(keyRefSchema)
    .check(z.describe('The key that replaced this one in a roll; `null` = not rolled.')),
  /** On a key made by a roll: the key it replaces. */
  replaces: z
    .nullable(keyRefSchema)
    .check(z.describe('The key this one replaced in a roll; `null` = not made by a roll.')),
});
export type ApiKey = z.output<typeof apiKeySchema>;
