import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { generateApiKey, hashApiKey, identificationPrefix } from '../api-keys/key-format';
import { API_KEY_LIMITS } from '../domain';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { batchGet } from './batch';
import type { Database } from './client';
import { cancellationReasons, isConditionalCheckFailed } from './conditions';
import { GSI1, keys } from './keys';
import { type Page, type PageRequest, queryPrefix } from './pagination';
import { type Tenant, toTenant } from './tenants';

/** Spec 3: active, revoked, expired. Computed, so an expiration date takes effect without any job. */
export const ApiKeyStatus = { ACTIVE: 'active', REVOKED: 'revoked', EXPIRED: 'expired' } as const;
export type ApiKeyStatus = (typeof ApiKeyStatus)[keyof typeof ApiKeyStatus];

export interface ApiKey {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export const apiKeyStatus = (
  key: Pick<ApiKey, 'revokedAt' | 'expiresAt'>,
  now = Date.now(),
): ApiKeyStatus => {
  if (key.revokedAt) return ApiKeyStatus.REVOKED;
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return ApiKeyStatus.EXPIRED;
  return ApiKeyStatus.ACTIVE;
};

export const toApiKey = (item: Record<string, unknown>): ApiKey => ({
  id: item.id as string,
  tenantId: item.tenantId as string,
  name: item.name as string,
  prefix: item.prefix as string,
  createdAt: item.createdAt as string,
  expiresAt: (item.expiresAt as string | undefined) ?? null,
  lastUsedAt: (item.lastUsedAt as string | undefined) ?? null,
  revokedAt: (item.revokedAt as string | undefined) ?? null,
});

/** The slots item: active key id → expiry (epoch ms, 0 = never), and a version for optimistic locking. */
interface Slots {
  version: number;
  keys: Record<string, number>;
}

const MAX_CREATE_ATTEMPTS = 25;

const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * 2 ** attempt)));

const readTenantAndSlots = async (db: Database, tenantId: string) => {
  const tenantKey = keys.tenant(tenantId);
  const slotsKey = keys.apiKeySlots(tenantId);
  const items = await batchGet(db, [tenantKey, slotsKey]);
  const tenantItem = items.find((item) => item.sk === tenantKey.sk);
  const slotsItem = items.find((item) => item.sk === slotsKey.sk);
  const slots: Slots = {
    version: (slotsItem?.version as number | undefined) ?? 0,
    keys: (slotsItem?.keys as Record<string, number> | undefined) ?? {},
  };
  return { tenant: tenantItem ? toTenant(tenantItem) : undefined, slots };
};

export interface CreatedApiKey extends ApiKey {
  /** The raw key: returned once, here, and never stored. */
  key: string;
}

/**
 * Creates a key if the tenant is under its plan's maximum (spec 3, 8). The count and the new key are
 * written in one transaction conditioned on the slots item's version, so concurrent creates cannot
 * both take the last slot: the loser re-reads and re-counts. Expired keys drop out of the count as
 * soon as their date passes.
 */
export const createApiKey = async (
  db: Database,
  input: { tenantId: string; name: string; expiresAt?: string | null | undefined; createdBy?: string },
): Promise<CreatedApiKey> => {
  for (let attempt = 0; attempt < MAX_CREATE_ATTEMPTS; attempt++) {
    const now = Date.now();
    const { tenant, slots } = await readTenantAndSlots(db, input.tenantId);
    if (!tenant) throw new AppError('NOT_FOUND', `Tenant ${input.tenantId} not found.`);
    const active = Object.fromEntries(
      Object.entries(slots.keys).filter(([, expiry]) => expiry === 0 || expiry > now),
    );
    assertUnderLimit(tenant, Object.keys(active).length);

    const raw = generateApiKey();
    const apiKey: ApiKey = {
      id: uuidv7(now),
      tenantId: tenant.id,
      name: input.name,
      prefix: identificationPrefix(raw),
      createdAt: new Date(now).toISOString(),
      expiresAt: input.expiresAt ?? null,
      lastUsedAt: null,
      revokedAt: null,
    };
    const expiry = apiKey.expiresAt ? Date.parse(apiKey.expiresAt) : 0;
    try {
      await db.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: db.tableName,
                Key: keys.apiKeySlots(tenant.id),
                UpdateExpression: 'SET #keys = :keys, #version = :next',
                ConditionExpression: 'attribute_not_exists(pk) OR #version = :seen',
                ExpressionAttributeNames: { '#keys': 'keys', '#version': 'version' },
                ExpressionAttributeValues: {
                  ':keys': { ...active, [apiKey.id]: expiry },
                  ':next': slots.version + 1,
                  ':seen': slots.version,
                },
              },
            },
            {
              Put: {
                TableName: db.tableName,
                Item: {
                  ...keys.apiKey(hashApiKey(raw)),
                  ...keys.apiKeyIndex(tenant.id, apiKey.id),
                  type: 'APIKEY',
                  ...apiKey,
                  expiresAt: apiKey.expiresAt ?? undefined,
                  lastUsedAt: undefined,
                  revokedAt: undefined,
                  createdBy: input.createdBy,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return { ...apiKey, key: raw };
    } catch (error) {
      const reasons = cancellationReasons(error);
      const lostRace = reasons?.some(
        (reason) => reason === 'ConditionalCheckFailed' || reason === 'TransactionConflict',
      );
      if (!lostRace) throw error;
      await backoff(attempt);
    }
  }
  throw new AppError('SERVICE_UNAVAILABLE', 'Too many concurrent key changes; retry.', {
    headers: { 'Retry-After': '1' },
  });
};

const assertUnderLimit = (tenant: Tenant, activeCount: number) => {
  const limit = API_KEY_LIMITS[tenant.plan];
  if (limit !== null && activeCount >= limit) {
    throw new AppError(
      'API_KEY_LIMIT_REACHED',
      `The ${tenant.plan} plan allows ${limit} active API keys and all ${limit} are in use. Revoke a key or upgrade the plan.`,
      { extensions: { limit, plan: tenant.plan } },
    );
  }
};

/** The tenant's keys, oldest first (ids are UUIDv7). */
export const listApiKeys = (db: Database, tenantId: string, page: PageRequest): Promise<Page<ApiKey>> =>
  queryPrefix(db, keys.apiKeysOfTenant(tenantId), page, toApiKey);

/**
 * Revokes a key of the tenant (spec 3: revoked keys are never reactivated) and frees its slot.
 * Another tenant's key id is NOT_FOUND. Revoking a revoked key changes nothing.
 */
export const revokeApiKey = async ({ client, tableName }: Database, tenantId: string, keyId: string) => {
  const { gsi1pk, gsi1sk } = keys.apiKeyIndex(tenantId, keyId);
  const { Items } = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: GSI1,
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': gsi1pk, ':sk': gsi1sk },
    }),
  );
  const item = Items?.[0];
  if (!item) throw new AppError('NOT_FOUND', `API key ${keyId} not found.`);
  if (item.revokedAt) return;
  try {
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName,
              Key: { pk: item.pk as string, sk: item.sk as string },
              UpdateExpression: 'SET revokedAt = :now',
              ConditionExpression: 'tenantId = :tenant AND attribute_not_exists(revokedAt)',
              ExpressionAttributeValues: { ':now': new Date().toISOString(), ':tenant': tenantId },
            },
          },
          {
            // Bumping the version makes a create that read the old slots retry instead of restoring this slot.
            Update: {
              TableName: tableName,
              Key: keys.apiKeySlots(tenantId),
              UpdateExpression: 'SET #version = if_not_exists(#version, :zero) + :one REMOVE #keys.#id',
              ExpressionAttributeNames: { '#version': 'version', '#keys': 'keys', '#id': keyId },
              ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
              ConditionExpression: 'attribute_exists(#keys)',
            },
          },
        ],
      }),
    );
  } catch (error) {
    const reasons = cancellationReasons(error);
    // Revoked concurrently by someone else: the outcome the caller asked for.
    if (reasons?.[0] === 'ConditionalCheckFailed') return;
    throw error;
  }
};

/** Verification read (spec 5.2): strongly consistent, by hash, never cached. */
export const getApiKeyByHash = async ({ client, tableName }: Database, keyHash: string) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: keys.apiKey(keyHash), ConsistentRead: true }),
  );
  return Item ? toApiKey(Item) : undefined;
};

/** Spec 5.2.5: `lastUsedAt` after each successful request; never moves backwards. */
export const touchApiKey = async ({ client, tableName }: Database, keyHash: string, at: string) => {
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.apiKey(keyHash),
        UpdateExpression: 'SET lastUsedAt = :at',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :at)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
};
