import * as z from 'zod/mini';
import { type Actor, type ApiKey, apiKeySchema, apiKeyStatusSchema } from '../domain/api-key';
import { FEATURES, PLANS } from '../domain/plan';
import type { Role } from '../domain/user';
import { describedRef, timestamp } from '../domain/values';
import { apiKeyStatus } from './rules';

/**
 * What management clients see of a key, derived from the entity (lib/domain/api-key.ts): never the raw
 * key (after creation) nor its hash, and not the tenant, which is the caller's own. Besides the spec's
 * fields: the KPI scope (`kpiIds`, null for every KPI), the roll state and the audit trail. Objects are
 * open (`z.object`): clients must tolerate new members, the usual rule for additive API changes.
 */

/** An audit actor as clients see it: a user with their e-mail (null when not looked up), an operator, or secret scanning. */
export const auditActorSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('user'), userId: z.string(), email: z.nullable(z.string()) }),
    z.object({ type: z.literal('operator'), name: z.string() }),
    z.object({ type: z.literal('secret-scanning'), source: z.literal('github'), url: z.string() }),
  ])
  .check(
    z.meta({
      id: 'AuditActor',
      description:
        'Who changed a key: a user of the tenant (`userId`, and `email`, `null` if the user is gone), an operator of the CLI (`name`), or secret scanning, which revoked a key found in public (`source`: `github`; `url`: where it was found, empty when the report named none).',
    }),
  );

const actorField = (description: string) => z.nullable(auditActorSchema).check(z.describe(description));

const viewFields = {
  status: apiKeyStatusSchema.check(
    z.describe(
      'Computed at every read: `revoked` once revoked, `expired` from `expiresAt` on, else `active`.',
    ),
  ),
  createdBy: actorField(
    'Who created the key (for a rolled-to key: who rolled); `null` for keys made before this was recorded.',
  ),
  revokedBy: actorField('Who revoked the key; `null` = not revoked (or not recorded).'),
  rolledBy: actorField('Who rolled the key; `null` = not rolled (or not recorded).'),
};

const viewShape = z.extend(z.omit(apiKeySchema, { tenantId: true }), viewFields);

export const apiKeyViewSchema = viewShape.check(
  z.meta({ id: 'ApiKey', description: 'An API key as listed: never the raw key nor its hash.' }),
);
export type ApiKeyView = z.output<typeof apiKeyViewSchema>;

/**
 * Where a key's last request came from: the caller's address and User-Agent, which say where the
 * systems that hold the key run. Only ADMINs, who manage the keys, see them; every other role sees the
 * rest of the usage with both `null`, as GitHub's API answers a hidden e-mail.
 */
export const sourceFields = (what: string) => ({
  lastSourceIp: z
    .nullable(z.string())
    .check(
      z.describe(`Where ${what} came from, as API Gateway saw it. ADMIN only: \`null\` for other roles.`),
    ),
  lastUserAgent: z
    .nullable(z.string())
    .check(z.describe('Its User-Agent, at most 200 characters. ADMIN only: `null` for other roles.')),
});

/** Whether a role sees where keys were used from (`sourceFields`). */
export const seesKeySources = (role: Role): boolean => role === 'ADMIN';

/** A usage record with where it came from hidden, for the roles that do not see it. */
export const withoutSource = <T extends { lastSourceIp: string | null; lastUserAgent: string | null }>(
  usage: T,
): T => ({ ...usage, lastSourceIp: null, lastUserAgent: null });

/** A key's last 30 days of use, as the key list shows it. */
export const recentUsageSchema = z
  .object({
    days: z
      .array(
        z.object({
          date: z.iso.date(),
          requests: z.int().check(z.describe('Requests with the key that day, the refused ones included.')),
          refused: z.int().check(z.describe('Refused requests among them, whatever the reason.')),
        }),
      )
      .check(z.describe('The last 30 UTC days, oldest first, today last; a day without requests is zeros.')),
    requests: z.int(),
    accepted: z.int().check(z.describe('Successful pushes.')),
    refused: z.int(),
    lastRequestAt: z.nullable(timestamp),
    ...sourceFields('the last request'),
  })
  .check(
    z.meta({
      id: 'ApiKeyRecentUsage',
      description:
        'The key’s last 30 days. `GET /api-keys/{id}/usage` has every day of the retention, by refusal reason.',
    }),
  );

/** A key in the list: the view and its last 30 days of use. */
export const apiKeyListItemSchema = z.extend(viewShape, { usage: recentUsageSchema }).check(
  z.meta({
    id: 'ApiKeyListItem',
    description: 'An API key as listed, with its last 30 days of use: never the raw key nor its hash.',
  }),
);

/** What a new key adds: the raw key, shown this once. */
const createdFields = {
  status: apiKeyStatusSchema.check(
    z.describe('Always `active` for a new key (unless the `expiresAt` sent was only moments away).'),
  ),
  lastUsedAt: z.nullable(timestamp).check(z.describe('Always `null` for a new key.')),
  key: z
    .string()
    .check(
      z.describe('The raw API key: `skm_` and 33 base62 characters (random part and a CRC32 checksum).'),
    ),
};

/** The creation answer: the view plus the raw key, the only time it is shown. */
export const createdApiKeyViewSchema = z.extend(viewShape, createdFields).check(
  z.meta({
    id: 'CreatedApiKey',
    description: 'The new key. `key` is in this response only: store it now, it cannot be shown again.',
  }),
);
export type CreatedApiKeyView = z.output<typeof createdApiKeyViewSchema>;

/** A roll's answer: the new key (raw key shown once) and the old key as it is now. */
export const rolledApiKeyViewSchema = z
  .extend(viewShape, {
    ...createdFields,
    previous: describedRef(apiKeyViewSchema, 'The old key after the roll.'),
  })
  .check(
    z.meta({
      id: 'RolledApiKey',
      description:
        'The new key (`key` in this response only) and `previous`, the old key as it is now: `replacedBy` the new key, expiring at the end of the grace period.',
    }),
  );
export type RolledApiKeyView = z.output<typeof rolledApiKeyViewSchema>;

/** The tenant's plan, as the key list tells it, so a client can say "2 of 3 keys used". */
export const keyPlanSchema = z
  .object({
    name: z.enum(PLANS),
    apiKeyLimit: z.nullable(z.int()).check(z.describe('Active keys the plan allows; `null` = unlimited.')),
    features: z
      .array(z.enum(FEATURES))
      .check(
        z.describe(
          'The plan’s features, e.g. `kpi_push_measurement` (needed to push) and `kpi_api_integration`.',
        ),
      ),
  })
  .check(z.meta({ id: 'KeyPlan', description: 'The tenant’s plan.' }));

const actorView = (actor: Actor | null): ApiKeyView['createdBy'] => {
  if (actor === null) return null;
  if (actor.type === 'user') return { type: actor.type, userId: actor.userId, email: actor.email ?? null };
  if (actor.type === 'operator') return { type: actor.type, name: actor.name };
  return { type: actor.type, source: actor.source, url: actor.url };
};

export const apiKeyView = (key: ApiKey, now = Date.now()): ApiKeyView => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  status: apiKeyStatus(key, now),
  createdAt: key.createdAt,
  expiresAt: key.expiresAt,
  lastUsedAt: key.lastUsedAt,
  revokedAt: key.revokedAt,
  kpiIds: key.kpiIds,
  createdBy: actorView(key.createdBy),
  revokedBy: actorView(key.revokedBy),
  rolledAt: key.rolledAt,
  rolledBy: actorView(key.rolledBy),
  replacedBy: key.replacedBy,
  replaces: key.replaces,
});

export const createdApiKeyView = (key: ApiKey & { key: string }, now = Date.now()): CreatedApiKeyView => ({
  ...apiKeyView(key, now),
  key: key.key,
});
