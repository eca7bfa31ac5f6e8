import { generateApiKey, hashApiKey, identificationPrefix } from '../api-keys/key-format';
import { API_KEY_LIMITS } from '../domain';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { lastUsedOf } from './api-key-usage';
import { batchGet } from './batch';
import type { Database } from './client';
import { cancellationReasons, isConditionalCheckFailed } from './conditions';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from './dynamo';
import { GSI1, hashOfApiKeyItem, type ItemKey, keys } from './keys';
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

/**
 * Plan maximums (spec 3, 8). A tenant on a plan with a maximum has a slots item listing the keys that
 * hold a slot (key id → key hash). Only `createApiKey` writes it, in one transaction with the new key,
 * conditioned on the item's version, so concurrent creates cannot both take the last slot: the loser
 * re-reads and re-counts. Revoking and expiring do not touch it; instead, when the list is full, the
 * create reads the holders' key items (at most a plan's maximum, 5) and frees the slots of keys that
 * are revoked or expired by now. So the item stays as small as the plan's maximum, and a revoked key
 * frees its slot without a write to it.
 *
 * A tenant on the unlimited plan keeps no slots item at all (issue 10): creating a key is one PutItem,
 * whatever the number of keys. A plan change deletes the item (`updateTenant`), and the first create
 * under a plan with a maximum rebuilds it from the tenant's keys.
 */
interface Slots {
  exists: boolean;
  version: number;
  holders: Record<string, string>;
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
    exists: slotsItem !== undefined,
    version: (slotsItem?.version as number | undefined) ?? 0,
    holders: (slotsItem?.holders as Record<string, string> | undefined) ?? {},
  };
  return { tenant: tenantItem ? toTenant(tenantItem) : undefined, slots };
};

const isActive = (item: Record<string, unknown> | undefined, now: number) =>
  item !== undefined && apiKeyStatus(toApiKey(item), now) === ApiKeyStatus.ACTIVE;

/** The tenant's active keys as slot holders, from the index: for a tenant whose slots item is missing. */
const holdersFromIndex = async (db: Database, tenantId: string, now: number) => {
  const holders: Record<string, string> = {};
  let cursor: string | undefined;
  do {
    const page = await queryPrefix(
      db,
      keys.apiKeysOfTenant(tenantId),
      { limit: 1000, cursor },
      (item) => item,
    );
    for (const item of page.items) {
      if (isActive(item, now)) holders[item.id as string] = hashOfApiKeyItem(item as ItemKey);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return holders;
};

/** The holders whose keys are still active; reads their key items (at most the plan's maximum). */
const activeHolders = async (db: Database, holders: Record<string, string>, now: number) => {
  const items = await batchGet(
    db,
    Object.values(holders).map((hash) => keys.apiKey(hash)),
  );
  const byHash = new Map(items.map((item) => [hashOfApiKeyItem(item as ItemKey), item]));
  return Object.fromEntries(Object.entries(holders).filter(([, hash]) => isActive(byHash.get(hash), now)));
};

export interface CreatedApiKey extends ApiKey {
  /** The raw key: returned once, here, and never stored. */
  key: string;
}

export const createApiKey = async (
  db: Database,
  input: { tenantId: string; name: string; expiresAt?: string | null | undefined; createdBy?: string },
): Promise<CreatedApiKey> => {
  for (let attempt = 0; attempt < MAX_CREATE_ATTEMPTS; attempt++) {
    const now = Date.now();
    const { tenant, slots } = await readTenantAndSlots(db, input.tenantId);
    if (!tenant) throw new AppError('NOT_FOUND', `Tenant ${input.tenantId} not found.`);
    const limit = API_KEY_LIMITS[tenant.plan];

    const raw = generateApiKey();
    const keyHash = hashApiKey(raw);
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
    const put = {
      TableName: db.tableName,
      Item: {
        ...keys.apiKey(keyHash),
        ...keys.apiKeyIndex(tenant.id, apiKey.id),
        type: 'APIKEY',
        ...apiKey,
        expiresAt: apiKey.expiresAt ?? undefined,
        lastUsedAt: undefined,
        revokedAt: undefined,
        createdBy: input.createdBy,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    };

    if (limit === null) {
      await db.client.send(new PutCommand(put));
      return { ...apiKey, key: raw };
    }

    let holders = slots.exists ? slots.holders : await holdersFromIndex(db, tenant.id, now);
    if (Object.keys(holders).length >= limit) holders = await activeHolders(db, holders, now);
    assertUnderLimit(tenant, Object.keys(holders).length);
    try {
      await db.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: db.tableName,
                Item: {
                  ...keys.apiKeySlots(tenant.id),
                  type: 'APIKEYSLOTS',
                  holders: { ...holders, [apiKey.id]: keyHash },
                  version: slots.version + 1,
                },
                ConditionExpression: slots.exists ? '#version = :seen' : 'attribute_not_exists(pk)',
                ...(slots.exists
                  ? {
                      ExpressionAttributeNames: { '#version': 'version' },
                      ExpressionAttributeValues: { ':seen': slots.version },
                    }
                  : {}),
              },
            },
            { Put: put },
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

/**
 * The tenant's keys, oldest first (ids are UUIDv7), with `lastUsedAt` from their usage items: one
 * query of the index and one batch read, so the push path's writes never touch the index.
 */
export const listApiKeys = async (
  db: Database,
  tenantId: string,
  page: PageRequest,
): Promise<Page<ApiKey>> => {
  const found = await queryPrefix(db, keys.apiKeysOfTenant(tenantId), page, (item) => item);
  const lastUsed = await lastUsedOf(db, found.items as ItemKey[]);
  const items = found.items.map((item) => ({
    ...toApiKey(item),
    lastUsedAt: lastUsed.get(item.pk as string) ?? null,
  }));
  return found.nextCursor ? { items, nextCursor: found.nextCursor } : { items };
};

/**
 * Revokes a key of the tenant (spec 3: revoked keys are never reactivated); its slot is freed by the
 * next create that needs it (see `createApiKey`). Another tenant's key id is NOT_FOUND. Revoking a
 * revoked key changes nothing.
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
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: item.pk as string, sk: item.sk as string },
        UpdateExpression: 'SET revokedAt = :now',
        ConditionExpression: 'tenantId = :tenant AND attribute_not_exists(revokedAt)',
        ExpressionAttributeValues: { ':now': new Date().toISOString(), ':tenant': tenantId },
      }),
    );
  } catch (error) {
    // Revoked concurrently by someone else: the outcome the caller asked for.
    if (!isConditionalCheckFailed(error)) throw error;
  }
};

/** Verification read (spec 5.2): strongly consistent, by hash, never cached. */
export const getApiKeyByHash = async ({ client, tableName }: Database, keyHash: string) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: keys.apiKey(keyHash), ConsistentRead: true }),
  );
  return Item ? toApiKey(Item) : undefined;
};
