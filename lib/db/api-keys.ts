import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { type Actor, type ApiKey, actorSchema, apiKeySchema, type KeyRef } from '../domain/api-key';
import type { TenantAuditEvent } from '../domain/audit-event';
import { id } from '../domain/values';
import { auditEventPut, writtenWithEvent } from './audit-events';
import { batchGet } from './batch';
import type { Database } from './client';
import { defineEntity, inKey } from './entity';
import { cancellationReasons, WriteConflict } from './errors';
import { decodeScope, encodeScope } from './key-scope';
import { GSI1, type ItemKey, keys } from './keys';
import { toKpi } from './kpis';
import { type Page, type PageRequest, queryPrefix } from './pagination';
import { toTenant } from './tenants';

/**
 * API key items. A key is stored at the SHA-256 of its raw key (`APIKEY#<sha256>`), so verifying a key
 * is one strongly consistent GetItem; the tenant index lists a tenant's keys. Its usage (`lastUsedAt`,
 * rate counters) is a separate item (lib/db/api-key-usage.ts). What a key may do, and when a key may be
 * made, rolled or revoked, is decided above this module (lib/api-keys/). Every change of a key is
 * written in one transaction with its audit event (./audit-events.ts): no change without its record.
 */

/** A key as stored, with its hash: the address of its item. */
export interface StoredApiKey {
  key: ApiKey;
  keyHash: string;
}

/**
 * Who changed a key, as stored: without the e-mail, which can change and is looked up when listing.
 * Keys stored before the audit trail had actor types name their creator by user id alone.
 */
const storedActor = /* @__PURE__ */ z.codec(
  /* @__PURE__ */ z.union([/* @__PURE__ */ z.string(), actorSchema]),
  actorSchema,
  {
    decode: (stored) => (typeof stored === 'string' ? { type: 'user' as const, userId: stored } : stored),
    encode: (actor) => (actor.type === 'user' ? { type: actor.type, userId: actor.userId } : actor),
  },
);

/**
 * The KPI scope in its stored form (./key-scope.ts): 16 bytes per KPI, base64url. Module-level schemas
 * are marked pure, as the declarations are, so that bundles without keys leave them out.
 */
const storedScope = /* @__PURE__ */ z.codec(/* @__PURE__ */ z.string(), /* @__PURE__ */ z.array(id), {
  decode: decodeScope,
  encode: encodeScope,
});

/**
 * A key item, at the hash of its raw key; in its tenant's index partition, and while it expires in the
 * alert check's bucket of its expiry day (gsi2). Its `lastUsedAt` lives on its usage items
 * (./api-key-usage.ts): read from here it is null.
 */
export const apiKeys = /* @__PURE__ */ defineEntity(() => ({
  type: 'APIKEY',
  schema: z.extend(apiKeySchema, { keyHash: z.string() }),
  key: (key) => ({
    ...keys.apiKey(key.keyHash),
    ...keys.apiKeyIndex(key.tenantId, key.id),
    ...(key.expiresAt ? keys.apiKeyExpiryIndex(new Date(key.expiresAt).toISOString(), key.id) : {}),
  }),
  stored: {
    keyHash: inKey('pk', keys.apiKey),
    kpiIds: { attribute: 'kpiScope', codec: storedScope },
    lastUsedAt: { read: () => null, write: () => ({}) },
    createdBy: { codec: storedActor },
    revokedBy: { codec: storedActor },
    rolledBy: { codec: storedActor },
  },
}));

/** A key item read back with its hash. */
export const toStored = (item: Record<string, unknown>): StoredApiKey => {
  const { keyHash, ...key } = apiKeys.fromItem(item);
  return { key, keyHash };
};

/** A key item read back; `lastUsedAt` is on the usage item, so it is null here. */
export const toApiKey = (item: Record<string, unknown>): ApiKey => toStored(item).key;

/** The write of a new key's item; it must not exist yet (a hash is a key's identity). */
const newKeyPut = (tableName: string, { key, keyHash }: StoredApiKey) => ({
  TableName: tableName,
  Item: apiKeys.toItem({ ...key, keyHash }),
  ConditionExpression: 'attribute_not_exists(pk)',
});

/**
 * The slot list of a tenant on a plan with a key maximum: the keys that hold a slot (key id → key
 * hash) and a version, which every write of it is conditioned on, so that two concurrent writers
 * cannot both take the last slot. Absent: the tenant has none yet (or its plan changed).
 */
export interface SlotList {
  exists: boolean;
  version: number;
  holders: Record<string, string>;
}

/** The stored form of a slot list; an item stored before keys were rolled reads as it was written. */
export const apiKeySlots = /* @__PURE__ */ defineEntity(() => ({
  type: 'APIKEYSLOTS',
  schema: z.object({ tenantId: id, holders: z.record(z.string(), z.string()), version: z.int() }),
  key: (slots) => keys.apiKeySlots(slots.tenantId),
  stored: { tenantId: inKey('pk', keys.tenant) },
}));

/** The tenant, its slot list and other items, in one batch read; the others are found with `at`. */
const readContext = async (db: Database, tenantId: string, others: ItemKey[]) => {
  const tenantKey = keys.tenant(tenantId);
  const slotsKey = keys.apiKeySlots(tenantId);
  const items = await batchGet(db, [tenantKey, slotsKey, ...others]);
  const at = ({ pk, sk }: ItemKey) => items.find((item) => item.pk === pk && item.sk === sk);
  const tenantItem = at(tenantKey);
  const slotsItem = at(slotsKey);
  const stored = slotsItem ? apiKeySlots.fromItem(slotsItem) : undefined;
  const slots: SlotList = {
    exists: stored !== undefined,
    version: stored?.version ?? 0,
    holders: stored?.holders ?? {},
  };
  return { tenant: tenantItem ? toTenant(tenantItem) : undefined, slots, at };
};

/** The first round trip of a roll: the tenant and its slot list, parsed (the tenant undefined if missing). */
export const readKeyContext = async (db: Database, tenantId: string) => {
  const { tenant, slots } = await readContext(db, tenantId, []);
  return { tenant, slots };
};

/**
 * The first round trip of a new key: the tenant, its slot list and the KPIs of its scope, in one batch
 * read, each parsed (undefined where there is none). A function of its own, so that the roll's bundle,
 * which reads no KPI, carries no KPI read (and its role no right to one).
 */
export const readKeyContextWithScope = async (db: Database, tenantId: string, kpiIds: string[]) => {
  const { tenant, slots, at } = await readContext(
    db,
    tenantId,
    kpiIds.map((kpiId) => keys.kpi(kpiId)),
  );
  const kpis = kpiIds.map((kpiId) => {
    const item = at(keys.kpi(kpiId));
    return item ? toKpi(item) : undefined;
  });
  return { tenant, slots, kpis };
};

/** The KPIs of a new scope of a key, in one batch read, each parsed (undefined where there is none). */
export const readScopeKpis = async (db: Database, kpiIds: string[]) => {
  const items = await batchGet(
    db,
    kpiIds.map((kpiId) => keys.kpi(kpiId)),
  );
  return kpiIds.map((kpiId) => {
    const { pk, sk } = keys.kpi(kpiId);
    const item = items.find((found) => found.pk === pk && found.sk === sk);
    return item ? toKpi(item) : undefined;
  });
};

/** Every key of a tenant, from the index, page by page: for a tenant whose slot list is missing. */
export const allApiKeysOf = async (db: Database, tenantId: string): Promise<StoredApiKey[]> => {
  const found: StoredApiKey[] = [];
  let cursor: string | undefined;
  do {
    // Stryker disable next-line ObjectLiteral: without it, one unlimited Query reads the same keys until they pass 1 MB
    const page = await queryPrefix(db, keys.apiKeysOfTenant(tenantId), { limit: 1000, cursor }, toStored);
    found.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return found;
};

/** The keys stored at these hashes, strongly consistent, by hash (missing ones are left out). */
export const apiKeysByHash = async (db: Database, hashes: string[]): Promise<Map<string, ApiKey>> => {
  const items = await batchGet(
    db,
    hashes.map((hash) => keys.apiKey(hash)),
  );
  return new Map(
    items.map((item) => {
      const { key, keyHash } = toStored(item);
      return [keyHash, key];
    }),
  );
};

const slotsPut = (tableName: string, tenantId: string, slots: SlotList, holders: Record<string, string>) => ({
  Put: {
    TableName: tableName,
    Item: apiKeySlots.toItem({ tenantId, holders, version: slots.version + 1 }),
    ConditionExpression: slots.exists ? '#version = :seen' : 'attribute_not_exists(pk)',
    ...(slots.exists
      ? {
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':seen': slots.version },
        }
      : {}),
  },
});

/** A transaction lost to a concurrent change of one of its items: read again and decide again. */
const lostRace = (error: unknown) =>
  cancellationReasons(error)?.some(
    (reason) => reason === 'ConditionalCheckFailed' || reason === 'TransactionConflict',
  ) ?? false;

/**
 * Writes a new key and its audit event, in one transaction. With `slots` (a plan with a key maximum),
 * the slot list becomes `holders` in the same transaction, conditioned on the version read: a
 * concurrent change of it is a WriteConflict. Without, whatever the number of keys, no other item.
 */
export const putApiKey = async (
  db: Database,
  created: StoredApiKey,
  event: TenantAuditEvent,
  slots?: { list: SlotList; holders: Record<string, string> },
): Promise<void> => {
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          ...(slots ? [slotsPut(db.tableName, created.key.tenantId, slots.list, slots.holders)] : []),
          { Put: newKeyPut(db.tableName, created) },
          auditEventPut(db, event),
        ],
      }),
    );
  } catch (error) {
    if (slots && lostRace(error)) throw new WriteConflict('slots', { cause: error });
    throw error;
  }
};

/**
 * A roll in one transaction: the old key gets its new expiry, `replacedBy`, `rolledAt` and `rolledBy`
 * (only while it is neither revoked nor rolled), the new key and the roll's audit event are written,
 * and with `slots` the slot list too. A lost race is a WriteConflict saying whether the old key itself
 * changed (`key`).
 */
export const putRolledApiKey = async (
  db: Database,
  roll: {
    old: StoredApiKey;
    expiresAt: string;
    replacedBy: KeyRef;
    rolledAt: string;
    rolledBy: Actor | undefined;
    created: StoredApiKey;
    slots?: { list: SlotList; holders: Record<string, string> };
  },
  event: TenantAuditEvent,
): Promise<void> => {
  const { old, rolledBy } = roll;
  const updateOld = {
    Update: {
      TableName: db.tableName,
      Key: keys.apiKey(old.keyHash),
      UpdateExpression: `SET expiresAt = :expiresAt, replacedBy = :replacedBy, rolledAt = :rolledAt${rolledBy ? ', rolledBy = :rolledBy' : ''}`,
      ConditionExpression:
        'tenantId = :tenant AND attribute_not_exists(revokedAt) AND attribute_not_exists(replacedBy)',
      ExpressionAttributeValues: {
        ':expiresAt': roll.expiresAt,
        ':replacedBy': roll.replacedBy,
        ':rolledAt': roll.rolledAt,
        ':tenant': old.key.tenantId,
        ...(rolledBy ? { ':rolledBy': z.encode(storedActor, rolledBy) } : {}),
      },
    },
  };
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          updateOld,
          { Put: newKeyPut(db.tableName, roll.created) },
          ...(roll.slots
            ? [slotsPut(db.tableName, old.key.tenantId, roll.slots.list, roll.slots.holders)]
            : []),
          auditEventPut(db, event),
        ],
      }),
    );
  } catch (error) {
    if (!lostRace(error)) throw error;
    // Stryker disable next-line OptionalChaining: a lost race is a cancelled transaction, which has reasons
    const keyChanged = cancellationReasons(error)?.[0] === 'ConditionalCheckFailed';
    throw new WriteConflict(keyChanged ? 'key' : 'slots', { cause: error });
  }
};

/**
 * The key of a tenant's key id, from the index (ids are unique: UUIDv7). The index key holds the
 * tenant, so another tenant's key id finds nothing, as an unknown id does.
 */
export const findApiKey = async (
  { client, tableName }: Database,
  tenantId: string,
  keyId: string,
): Promise<StoredApiKey | undefined> => {
  const { gsi1pk, gsi1sk } = keys.apiKeyIndex(tenantId, keyId);
  const { Items } = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: GSI1,
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': gsi1pk, ':sk': gsi1sk },
    }),
  );
  // Stryker disable next-line OptionalChaining: DynamoDB always answers a Query with Items (empty when none match)
  const item = Items?.[0];
  return item ? toStored(item) : undefined;
};

/**
 * A revocation in one transaction with its audit event: the key marked revoked (`revoke`, only while
 * it is not), the key it replaced in a roll made to expire now (`endGrace`, only while that one is
 * still in its grace period, replaced by `replacementId`), or both. A condition that no longer holds
 * (a concurrent revocation, roll or expiry) writes nothing: a WriteConflict on the `key`, decided again
 * by the caller from a fresh read.
 */
export const putKeyRevocation = async (
  db: Database,
  change: {
    at: string;
    revoke?: { stored: StoredApiKey; by: Actor | undefined };
    endGrace?: { stored: StoredApiKey; replacementId: string };
  },
  event: TenantAuditEvent,
): Promise<void> => {
  const { at, revoke, endGrace } = change;
  const revocation = revoke && {
    Update: {
      TableName: db.tableName,
      Key: keys.apiKey(revoke.stored.keyHash),
      UpdateExpression: `SET revokedAt = :now${revoke.by ? ', revokedBy = :by' : ''}`,
      ConditionExpression: 'tenantId = :tenant AND attribute_not_exists(revokedAt)',
      ExpressionAttributeValues: {
        ':now': at,
        ':tenant': revoke.stored.key.tenantId,
        ...(revoke.by ? { ':by': z.encode(storedActor, revoke.by) } : {}),
      },
    },
  };
  const graceEnd = endGrace && {
    Update: {
      TableName: db.tableName,
      Key: keys.apiKey(endGrace.stored.keyHash),
      UpdateExpression: 'SET expiresAt = :at',
      ConditionExpression:
        'tenantId = :tenant AND replacedBy.id = :replacement AND expiresAt > :at AND attribute_not_exists(revokedAt)',
      ExpressionAttributeValues: {
        ':at': at,
        ':tenant': endGrace.stored.key.tenantId,
        ':replacement': endGrace.replacementId,
      },
    },
  };
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          ...(revocation ? [revocation] : []),
          ...(graceEnd ? [graceEnd] : []),
          auditEventPut(db, event),
        ],
      }),
    );
  } catch (error) {
    if (lostRace(error)) throw new WriteConflict('key', { cause: error });
    throw error;
  }
};

/**
 * What a change of a key sets: its name, its source allowlist (null: any address), its KPI scope
 * (null: every KPI), or several of them.
 */
export interface KeyChanges {
  name?: string | undefined;
  allowedSources?: string[] | null | undefined;
  kpiIds?: string[] | null | undefined;
}

/**
 * Changes a key's name, source allowlist or KPI scope, with its audit event in the same transaction, while the
 * key is neither revoked nor expired at `at`: the changed key, or undefined when the key had stopped
 * meanwhile (the condition failed, and nothing was written). A revoked or expired key keeps what it
 * was when it stopped.
 */
export const putKeyChanges = async (
  db: Database,
  { key, keyHash }: StoredApiKey,
  changes: KeyChanges,
  at: string,
  event: TenantAuditEvent,
): Promise<StoredApiKey | undefined> => {
  const set: string[] = [];
  const values: Record<string, unknown> = { ':tenant': key.tenantId, ':at': at };
  if (changes.name !== undefined) {
    set.push('#name = :name');
    values[':name'] = changes.name;
  }
  if (changes.allowedSources) {
    set.push('allowedSources = :sources');
    values[':sources'] = changes.allowedSources;
  }
  if (changes.kpiIds) {
    set.push('kpiScope = :scope');
    values[':scope'] = encodeScope(changes.kpiIds);
  }
  const remove = [
    ...(changes.allowedSources === null ? ['allowedSources'] : []),
    ...(changes.kpiIds === null ? ['kpiScope'] : []),
  ];
  const expression = [
    set.length > 0 ? `SET ${set.join(', ')}` : '',
    remove.length > 0 ? `REMOVE ${remove.join(', ')}` : '',
  ].join(' ');
  const written = await writtenWithEvent(
    db,
    {
      Update: {
        TableName: db.tableName,
        Key: keys.apiKey(keyHash),
        // Stryker disable next-line MethodExpression: DynamoDB takes an expression with spaces around it too
        UpdateExpression: expression.trim(),
        ConditionExpression:
          'tenantId = :tenant AND attribute_not_exists(revokedAt) AND (attribute_not_exists(expiresAt) OR expiresAt > :at)',
        ...(changes.name !== undefined ? { ExpressionAttributeNames: { '#name': 'name' } } : {}),
        ExpressionAttributeValues: values,
      },
    },
    event,
  );
  if (!written) return undefined;
  return {
    keyHash,
    key: {
      ...key,
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.allowedSources !== undefined ? { allowedSources: changes.allowedSources } : {}),
      ...(changes.kpiIds !== undefined ? { kpiIds: changes.kpiIds } : {}),
    },
  };
};

/** Verification read (spec 5.2): strongly consistent, by hash, never cached. */
export const getApiKeyByHash = async ({ client, tableName }: Database, keyHash: string) => {
  const { Item } = await client.send(
    // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
    new GetCommand({ TableName: tableName, Key: keys.apiKey(keyHash), ConsistentRead: true }),
  );
  return Item ? toApiKey(Item) : undefined;
};

/** One page of a tenant's keys, oldest first (ids are UUIDv7). */
export const apiKeyPage = (db: Database, tenantId: string, page: PageRequest): Promise<Page<StoredApiKey>> =>
  queryPrefix(db, keys.apiKeysOfTenant(tenantId), page, toStored);
