import { type ApiKey, apiKeyStatus } from '../db/api-keys';

/** What management clients see of a key: never the raw key (after creation) nor its hash. */
export const apiKeyView = (key: ApiKey, now = Date.now()) => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  status: apiKeyStatus(key, now),
  createdAt: key.createdAt,
  expiresAt: key.expiresAt,
  lastUsedAt: key.lastUsedAt,
  revokedAt: key.revokedAt,
});
