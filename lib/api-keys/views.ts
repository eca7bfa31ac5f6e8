import { type Actor, type ApiKey, apiKeyStatus } from '../db/api-keys';

/** An audit actor as clients see it: a user with their e-mail (null when not looked up), or an operator. */
const actorView = (actor: Actor | null) =>
  actor === null
    ? null
    : actor.type === 'user'
      ? { type: actor.type, userId: actor.userId, email: actor.email ?? null }
      : { type: actor.type, name: actor.name };

/**
 * What management clients see of a key: never the raw key (after creation) nor its hash. Besides the
 * spec's fields: the KPI scope (`kpiIds`, null for every KPI), the roll state (`replacedBy`, `replaces`,
 * `rolledAt`) and the audit trail (`createdBy`, `revokedBy`, `rolledBy`) of issue 13.
 */
export const apiKeyView = (key: ApiKey, now = Date.now()) => ({
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

export type ApiKeyView = ReturnType<typeof apiKeyView>;

/** The creation (and roll) answer: the view plus the raw key, the only time it is shown. */
export const createdApiKeyView = (key: ApiKey & { key: string }, now = Date.now()) => ({
  ...apiKeyView(key, now),
  key: key.key,
});
