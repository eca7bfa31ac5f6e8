import { generateApiKey, hashApiKey, identificationPrefix } from '../api-keys/key-format';
import { decodeScope, encodeScope } from '../api-keys/scope';
import { API_KEY_LIMITS, ROLL_GRACE_HOURS } from '../domain';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { lastUsedOf } from './api-key-usage';
import { batchGet } from './batch';
import type { Database } from './client';
import { cancellationReasons, isConditionalCheckFailed } from './conditions';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from './dynamo';
import { GSI1, hashOfApiKeyItem, type ItemKey, keys } from './keys';
import { type PageRequest, queryPrefix } from './pagination';
import { type Tenant, toTenant } from './tenants';

/** Spec 3: active, revoked, expired. Computed, so an expiration date takes effect without any job. */
export const ApiKeyStatus = { ACTIVE: 'active', REVOKED: 'revoked', EXPIRED: 'expired' } as const;
export type ApiKeyStatus = (typeof ApiKeyStatus)[keyof typeof ApiKeyStatus];

/**
 * Who changed a key (issue 13's audit trail): a signed-in user of the tenant (API, key page), or an
 * operator (scripts/admin.ts, by their name). Stored with the key; a user's e-mail is looked up when
 * keys are listed, so the key item holds an id, not the address (see `MAX_SCOPE_KPIS` on item size).
 */
export type Actor =
  | {
      type: 'user';
      userId: string;
      /** Not stored: filled in by `listApiKeys` from the user item (null if the user is gone). */
      email?: string | null;
    }
  | { type: 'operator'; name: string };

/** A key's neighbour in a roll: the key that replaced it, or the one it replaces. */
export interface KeyRef {
  id: string;
  prefix: string;
}

export interface ApiKey {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The KPIs the key may push to; null: every KPI of the tenant (issue 13). */
  kpiIds: string[] | null;
  createdBy: Actor | null;
  revokedBy: Actor | null;
  /** Set when the key was rolled: it keeps working until `expiresAt`, the end of its grace period. */
  rolledAt: string | null;
  rolledBy: Actor | null;
  replacedBy: KeyRef | null;
  /** On a key made by a roll: the key it replaces. */
  replaces: KeyRef | null;
}

export const apiKeyStatus = (
  key: Pick<ApiKey, 'revokedAt' | 'expiresAt'>,
  now = Date.now(),
): ApiKeyStatus => {
  if (key.revokedAt) return ApiKeyStatus.REVOKED;
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return ApiKeyStatus.EXPIRED;
  return ApiKeyStatus.ACTIVE;
};

/** An actor as stored: without the e-mail, which can change and is looked up when listing. */
const storedActor = (actor: Actor | null | undefined) =>
  actor ? (actor.type === 'user' ? { type: actor.type, userId: actor.userId } : actor) : undefined;

/** Keys stored before issue 13 name their creator by user id alone. */
const toActor = (value: unknown): Actor | null => {
  if (typeof value === 'string') return { type: 'user', userId: value };
  if (typeof value !== 'object' || value === null) return null;
  const actor = value as Record<string, unknown>;
  if (actor.type === 'user' && typeof actor.userId === 'string')
    return { type: 'user', userId: actor.userId };
  if (actor.type === 'operator' && typeof actor.name === 'string')
    return { type: 'operator', name: actor.name };
  return null;
};

const toKeyRef = (value: unknown): KeyRef | null => {
  const ref = value as Partial<KeyRef> | undefined;
  return typeof ref?.id === 'string' && typeof ref.prefix === 'string'
    ? { id: ref.id, prefix: ref.prefix }
    : null;
};

const optional = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export const toApiKey = (item: Record<string, unknown>): ApiKey => ({
  id: item.id as string,
  tenantId: item.tenantId as string,
  name: item.name as string,
  prefix: item.prefix as string,
  createdAt: item.createdAt as string,
  expiresAt: optional(item.expiresAt),
  lastUsedAt: optional(item.lastUsedAt),
  revokedAt: optional(item.revokedAt),
  kpiIds: typeof item.kpiScope === 'string' ? decodeScope(item.kpiScope) : null,
  createdBy: toActor(item.createdBy),
  revokedBy: toActor(item.revokedBy),
  rolledAt: optional(item.rolledAt),
  rolledBy: toActor(item.rolledBy),
  replacedBy: toKeyRef(item.replacedBy),
  replaces: toKeyRef(item.replaces),
});

/**
 * Plan maximums (spec 3, 8). A tenant on a plan with a maximum has a slots item listing the keys that
 * hold a slot (key id → key hash). Only `createApiKey` and `rollApiKey` write it, in one transaction
 * with the key items, conditioned on the item's version, so concurrent creates cannot both take the
 * last slot: the loser re-reads and re-counts. Revoking and expiring do not touch it; instead, when the
 * list is full, the create reads the holders' key items (at most a plan's maximum, 5) and frees the
 * slots of keys that are revoked or expired by now. So the item stays as small as the plan's maximum,
 * and a revoked key frees its slot without a write to it.
 *
 * A roll passes the old key's slot to the new key in the same transaction (issue 13): the old key
 * keeps working during its grace period but holds no slot, so a roll works at the plan maximum. A
 * rolled key carries `replacedBy`, and nothing counts such a key as a holder (`holdsSlot`).
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

const MAX_WRITE_ATTEMPTS = 25;

const backoff = (attempt: number) =>
  // Stryker disable next-line ArithmeticOperator: a backoff constant; only the wait between tries changes
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * 2 ** attempt)));

/** The tenant, its slots item and any other items of the first round trip, in one batch read. */
const readTenantAndSlots = async (db: Database, tenantId: string, more: ItemKey[] = []) => {
  const tenantKey = keys.tenant(tenantId);
  const slotsKey = keys.apiKeySlots(tenantId);
  const items = await batchGet(db, [tenantKey, slotsKey, ...more]);
  const tenantItem = items.find((item) => item.pk === tenantKey.pk && item.sk === tenantKey.sk);
  const slotsItem = items.find((item) => item.pk === slotsKey.pk && item.sk === slotsKey.sk);
  const slots: Slots = {
    exists: slotsItem !== undefined,
    version: (slotsItem?.version as number | undefined) ?? 0,
    holders: (slotsItem?.holders as Record<string, string> | undefined) ?? {},
  };
  return { tenant: tenantItem ? toTenant(tenantItem) : undefined, slots, items };
};

/** A key holds a slot while it is active and has not been rolled (its replacement holds the slot). */
const holdsSlot = (item: Record<string, unknown> | undefined, now: number) =>
  item !== undefined &&
  item.replacedBy === undefined &&
  apiKeyStatus(toApiKey(item), now) === ApiKeyStatus.ACTIVE;

/** The tenant's slot holders, from the index: for a tenant whose slots item is missing. */
const holdersFromIndex = async (db: Database, tenantId: string, now: number) => {
  const holders: Record<string, string> = {};
  let cursor: string | undefined;
  do {
    const page = await queryPrefix(
      db,
      keys.apiKeysOfTenant(tenantId),
      // Stryker disable next-line ObjectLiteral: without it, one unlimited Query reads the same keys until they pass 1 MB
      { limit: 1000, cursor },
      (item) => item,
    );
    for (const item of page.items) {
      if (holdsSlot(item, now)) holders[item.id as string] = hashOfApiKeyItem(item as ItemKey);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return holders;
};

/** The holders whose keys still hold a slot; reads their key items (at most the plan's maximum). */
const currentHolders = async (db: Database, holders: Record<string, string>, now: number) => {
  const items = await batchGet(
    db,
    Object.values(holders).map((hash) => keys.apiKey(hash)),
  );
  const byHash = new Map(items.map((item) => [hashOfApiKeyItem(item as ItemKey), item]));
  return Object.fromEntries(Object.entries(holders).filter(([, hash]) => holdsSlot(byHash.get(hash), now)));
};

/**
 * The slot holders after `leaving` gives up its slot and a new key takes one, or the plan's problem
 * when the plan is full. Only called for a plan with a maximum.
 */
const holdersWithNewKey = async (
  db: Database,
  tenant: Tenant,
  slots: Slots,
  now: number,
  leaving: string | undefined,
) => {
  const limit = API_KEY_LIMITS[tenant.plan] as number;
  let holders = slots.exists ? { ...slots.holders } : await holdersFromIndex(db, tenant.id, now);
  // Stryker disable next-line ConditionalExpression: deleting an undefined member deletes nothing
  if (leaving) delete holders[leaving];
  if (Object.keys(holders).length >= limit) holders = await currentHolders(db, holders, now);
  if (Object.keys(holders).length >= limit) {
    throw new AppError(
      'API_KEY_LIMIT_REACHED',
      `The ${tenant.plan} plan allows ${limit} active API keys and all ${limit} are in use. Revoke a key or upgrade the plan.`,
      { extensions: { limit, plan: tenant.plan } },
    );
  }
  return holders;
};

const slotsPut = (db: Database, tenantId: string, slots: Slots, holders: Record<string, string>) => ({
  Put: {
    TableName: db.tableName,
    Item: { ...keys.apiKeySlots(tenantId), type: 'APIKEYSLOTS', holders, version: slots.version + 1 },
    ConditionExpression: slots.exists ? '#version = :seen' : 'attribute_not_exists(pk)',
    ...(slots.exists
      ? {
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':seen': slots.version },
        }
      : {}),
  },
});

/** Lost a race on the slots item (or on the key items of a roll): read again and retry. */
const lostRace = (error: unknown) =>
  cancellationReasons(error)?.some(
    (reason) => reason === 'ConditionalCheckFailed' || reason === 'TransactionConflict',
  ) ?? false;

const keyNotFound = (keyId: string) => new AppError('NOT_FOUND', `API key ${keyId} not found.`);

const tooManyConcurrentChanges = () =>
  new AppError('SERVICE_UNAVAILABLE', 'Too many concurrent key changes; retry.', {
    headers: { 'Retry-After': '1' },
  });

export interface CreatedApiKey extends ApiKey {
  /** The raw key: returned once, here, and never stored. */
  key: string;
}

/** A new key's item and what the caller gets back (with the raw key, once). */
const newKey = (
  input: {
    tenantId: string;
    name: string;
    expiresAt: string | null;
    kpiIds: string[] | null;
    createdBy: Actor | null;
    replaces?: KeyRef;
  },
  now: number,
  tableName: string,
) => {
  const raw = generateApiKey();
  const keyHash = hashApiKey(raw);
  const apiKey: ApiKey = {
    id: uuidv7(now),
    tenantId: input.tenantId,
    name: input.name,
    prefix: identificationPrefix(raw),
    createdAt: new Date(now).toISOString(),
    expiresAt: input.expiresAt,
    lastUsedAt: null,
    revokedAt: null,
    kpiIds: input.kpiIds,
    createdBy: input.createdBy,
    revokedBy: null,
    rolledAt: null,
    rolledBy: null,
    replacedBy: null,
    replaces: input.replaces ?? null,
  };
  const put = {
    TableName: tableName,
    Item: {
      ...keys.apiKey(keyHash),
      ...keys.apiKeyIndex(apiKey.tenantId, apiKey.id),
      type: 'APIKEY',
      id: apiKey.id,
      tenantId: apiKey.tenantId,
      name: apiKey.name,
      prefix: apiKey.prefix,
      createdAt: apiKey.createdAt,
      expiresAt: apiKey.expiresAt ?? undefined,
      kpiScope: apiKey.kpiIds ? encodeScope(apiKey.kpiIds) : undefined,
      createdBy: storedActor(apiKey.createdBy),
      replaces: apiKey.replaces ?? undefined,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  };
  return { apiKey, raw, keyHash, put };
};

/** Instants are stored in one form (`toISOString`), so that they also compare as strings. */
const instant = (value: string | null | undefined): string | null =>
  value === null || value === undefined ? null : new Date(value).toISOString();

/**
 * Issue 13: each KPI of a scope must be a KPI of the tenant; checked against the items read in the
 * create's first round trip. Another tenant's KPI looks like a missing one.
 */
const assertScopeOfTenant = (kpiIds: string[], tenantId: string, items: Record<string, unknown>[]) => {
  const owned = new Set(
    // Stryker disable next-line ConditionalExpression: the other items of that read (tenant, slots) have no tenantId
    items.filter((item) => item.type === 'KPI' && item.tenantId === tenantId).map((item) => item.id),
  );
  const errors = kpiIds.flatMap((id, index) =>
    owned.has(id)
      ? []
      : [{ path: `kpiIds[${index}]`, message: `No KPI of this organization has the id ${id}.` }],
  );
  if (errors.length > 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${errors.length} of the kpiIds are not KPIs of this organization.`,
      {
        errors,
      },
    );
  }
};

export const createApiKey = async (
  db: Database,
  input: {
    tenantId: string;
    name: string;
    expiresAt?: string | null | undefined;
    /** Issue 13: 1 to 100 KPIs of the tenant; null or absent for every KPI. */
    kpiIds?: string[] | null | undefined;
    createdBy?: Actor | undefined;
  },
): Promise<CreatedApiKey> => {
  const kpiIds = input.kpiIds ?? null;
  if (kpiIds) encodeScope(kpiIds); // a malformed scope fails before any read
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const now = Date.now();
    const { tenant, slots, items } = await readTenantAndSlots(
      db,
      input.tenantId,
      (kpiIds ?? []).map((id) => keys.kpi(id)),
    );
    if (!tenant) throw new AppError('NOT_FOUND', `Tenant ${input.tenantId} not found.`);
    if (kpiIds) assertScopeOfTenant(kpiIds, tenant.id, items);
    const created = newKey(
      {
        tenantId: tenant.id,
        name: input.name,
        expiresAt: instant(input.expiresAt),
        kpiIds,
        createdBy: input.createdBy ?? null,
      },
      now,
      db.tableName,
    );

    if (API_KEY_LIMITS[tenant.plan] === null) {
      await db.client.send(new PutCommand(created.put));
      return { ...created.apiKey, key: created.raw };
    }

    const holders = await holdersWithNewKey(db, tenant, slots, now, undefined);
    try {
      await db.client.send(
        new TransactWriteCommand({
          TransactItems: [
            slotsPut(db, tenant.id, slots, { ...holders, [created.apiKey.id]: created.keyHash }),
            { Put: created.put },
          ],
        }),
      );
      return { ...created.apiKey, key: created.raw };
    } catch (error) {
      if (!lostRace(error)) throw error;
      await backoff(attempt);
    }
  }
  throw tooManyConcurrentChanges();
};

export interface RolledApiKey {
  /** The new key, with the raw key (shown once). */
  created: CreatedApiKey;
  /** The old key as it is now: `replacedBy` the new key, expiring at the end of the grace period. */
  previous: ApiKey;
}

/**
 * The key item of a tenant's key id, from the index (ids are unique: UUIDv7). The index key holds the
 * tenant, so another tenant's key id finds nothing: NOT_FOUND, as for an unknown id.
 */
const findKeyItem = async ({ client, tableName }: Database, tenantId: string, keyId: string) => {
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
  if (!item) throw keyNotFound(keyId);
  return item;
};

const assertRollable = (key: ApiKey, now: number) => {
  if (key.replacedBy) {
    throw new AppError(
      'API_KEY_ALREADY_ROLLED',
      `API key ${key.prefix}… was already rolled; it is replaced by ${key.replacedBy.prefix}… (id ${key.replacedBy.id}). Roll that key instead.`,
      { extensions: { replacedBy: key.replacedBy } },
    );
  }
  const status = apiKeyStatus(key, now);
  if (status !== ApiKeyStatus.ACTIVE) {
    throw new AppError(
      'API_KEY_NOT_ACTIVE',
      `API key ${key.prefix}… is ${status}; only an active key can be rolled. Create a new key instead.`,
      { extensions: { keyStatus: status } },
    );
  }
};

/**
 * Issue 13, "roll key" (Stripe's roll, Unkey's reroll): a new key with the old key's name and scope,
 * and the old key set to expire at the end of the grace period (0 hours: now), never later than it
 * already would. The new key keeps the old key's lifetime (a key that lived 90 days gets 90 days from
 * now), unless `expiresAt` is given (null: no expiration). The old key's slot passes to the new one in
 * the same transaction, so rolling works at the plan maximum, and two concurrent rolls of one key make
 * one new key: the other gets API_KEY_ALREADY_ROLLED.
 */
export const rollApiKey = async (
  db: Database,
  input: {
    tenantId: string;
    keyId: string;
    gracePeriodHours?: number | undefined;
    expiresAt?: string | null | undefined;
    by?: Actor | undefined;
  },
): Promise<RolledApiKey> => {
  const graceHours = input.gracePeriodHours ?? ROLL_GRACE_HOURS.default;
  if (!Number.isInteger(graceHours) || graceHours < 0 || graceHours > ROLL_GRACE_HOURS.max) {
    throw new AppError('VALIDATION_FAILED', 'The grace period is invalid.', {
      errors: [
        {
          path: 'gracePeriodHours',
          message: `must be a whole number of hours from 0 to ${ROLL_GRACE_HOURS.max}`,
        },
      ],
    });
  }
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const [oldItem, { tenant, slots }] = await Promise.all([
      findKeyItem(db, input.tenantId, input.keyId),
      readTenantAndSlots(db, input.tenantId),
    ]);
    const now = Date.now();
    const old = toApiKey(oldItem);
    assertRollable(old, now);
    if (!tenant) throw new AppError('NOT_FOUND', `Tenant ${input.tenantId} not found.`);

    const graceEnd = now + graceHours * 3_600_000;
    const oldExpiresAt = new Date(
      old.expiresAt ? Math.min(Date.parse(old.expiresAt), graceEnd) : graceEnd,
    ).toISOString();
    const newExpiresAt =
      input.expiresAt !== undefined
        ? instant(input.expiresAt)
        : old.expiresAt
          ? new Date(now + (Date.parse(old.expiresAt) - Date.parse(old.createdAt))).toISOString()
          : null;
    const created = newKey(
      {
        tenantId: tenant.id,
        name: old.name,
        expiresAt: newExpiresAt,
        kpiIds: old.kpiIds,
        createdBy: input.by ?? null,
        replaces: { id: old.id, prefix: old.prefix },
      },
      now,
      db.tableName,
    );
    const rolledAt = new Date(now).toISOString();
    const replacedBy = { id: created.apiKey.id, prefix: created.apiKey.prefix };
    const updateOld = {
      Update: {
        TableName: db.tableName,
        Key: { pk: oldItem.pk as string, sk: oldItem.sk as string },
        UpdateExpression: `SET expiresAt = :expiresAt, replacedBy = :replacedBy, rolledAt = :rolledAt${input.by ? ', rolledBy = :rolledBy' : ''}`,
        // Revoked or rolled by someone else since the read: the next attempt reports it.
        ConditionExpression:
          'tenantId = :tenant AND attribute_not_exists(revokedAt) AND attribute_not_exists(replacedBy)',
        ExpressionAttributeValues: {
          ':expiresAt': oldExpiresAt,
          ':replacedBy': replacedBy,
          ':rolledAt': rolledAt,
          ':tenant': tenant.id,
          ...(input.by ? { ':rolledBy': storedActor(input.by) } : {}),
        },
      },
    };
    const limited = API_KEY_LIMITS[tenant.plan] !== null;
    const holders = limited ? await holdersWithNewKey(db, tenant, slots, now, old.id) : undefined;
    try {
      await db.client.send(
        new TransactWriteCommand({
          TransactItems: [
            updateOld,
            { Put: created.put },
            ...(holders
              ? [slotsPut(db, tenant.id, slots, { ...holders, [created.apiKey.id]: created.keyHash })]
              : []),
          ],
        }),
      );
      return {
        created: { ...created.apiKey, key: created.raw },
        previous: {
          ...old,
          expiresAt: oldExpiresAt,
          replacedBy,
          rolledAt,
          rolledBy: input.by ?? null,
        },
      };
    } catch (error) {
      if (!lostRace(error)) throw error;
      // Stryker disable next-line OptionalChaining: a lost race is a cancelled transaction, which has reasons
      if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') {
        // The index read may lag behind a concurrent roll, revocation or deletion: the key item says which.
        const fresh = await getApiKeyByHash(db, hashOfApiKeyItem(oldItem as ItemKey));
        if (!fresh) throw keyNotFound(input.keyId);
        assertRollable(fresh, Date.now());
      }
      await backoff(attempt);
    }
  }
  throw tooManyConcurrentChanges();
};

/** What the key list says about the tenant's plan, so a client can tell "2 of 3 keys used" (issue 13). */
export interface KeyPlan {
  name: Tenant['plan'];
  /** Active keys the plan allows; null: unlimited. */
  apiKeyLimit: number | null;
  features: Tenant['features'];
}

export interface ApiKeyList {
  items: ApiKey[];
  nextCursor?: string;
  /** The tenant's plan; null only if the tenant record is missing. */
  plan: KeyPlan | null;
}

/**
 * The tenant's keys, oldest first (ids are UUIDv7), with `lastUsedAt` from their usage items, the
 * e-mails of the users named in their audit trail, and the tenant's plan: one query of the index and
 * one batch read, so the push path's writes never touch the index.
 */
export const listApiKeys = async (db: Database, tenantId: string, page: PageRequest): Promise<ApiKeyList> => {
  const found = await queryPrefix(db, keys.apiKeysOfTenant(tenantId), page, (item) => item);
  const apiKeys = found.items.map(toApiKey);
  const userIds = [
    ...new Set(
      apiKeys.flatMap((key) =>
        [key.createdBy, key.revokedBy, key.rolledBy].flatMap((actor) =>
          actor?.type === 'user' ? [actor.userId] : [],
        ),
      ),
    ),
  ];
  const tenantKey = keys.tenant(tenantId);
  const usersAndUsage = [tenantKey, ...userIds.map((userId) => keys.user(tenantId, userId))];
  const [lastUsed, others] = await Promise.all([
    lastUsedOf(db, found.items as ItemKey[]),
    batchGet(db, usersAndUsage),
  ]);
  const tenantItem = others.find((item) => item.sk === tenantKey.sk);
  const emails = new Map(
    // Stryker disable next-line MethodExpression,ConditionalExpression: the only other item read is the tenant's, whose id is no user's
    others.filter((item) => item.type === 'USER').map((item) => [item.id as string, item.email as string]),
  );
  const withEmail = (actor: Actor | null): Actor | null =>
    actor?.type === 'user' ? { ...actor, email: emails.get(actor.userId) ?? null } : actor;
  const items = apiKeys.map((key, index) => ({
    ...key,
    lastUsedAt: lastUsed.get(found.items[index]?.pk as string) ?? null,
    createdBy: withEmail(key.createdBy),
    revokedBy: withEmail(key.revokedBy),
    rolledBy: withEmail(key.rolledBy),
  }));
  const tenant = tenantItem ? toTenant(tenantItem) : undefined;
  const plan = tenant
    ? { name: tenant.plan, apiKeyLimit: API_KEY_LIMITS[tenant.plan], features: tenant.features }
    : null;
  return found.nextCursor ? { items, nextCursor: found.nextCursor, plan } : { items, plan };
};

/**
 * Revokes a key of the tenant (spec 3: revoked keys are never reactivated); its slot is freed by the
 * next create that needs it (see `createApiKey`). Another tenant's key id is NOT_FOUND. Revoking a
 * revoked key changes nothing: the first revocation's time and actor stay.
 */
export const revokeApiKey = async (db: Database, tenantId: string, keyId: string, by?: Actor) => {
  const item = await findKeyItem(db, tenantId, keyId);
  if (item.revokedAt) return;
  try {
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: { pk: item.pk as string, sk: item.sk as string },
        UpdateExpression: `SET revokedAt = :now${by ? ', revokedBy = :by' : ''}`,
        ConditionExpression: 'tenantId = :tenant AND attribute_not_exists(revokedAt)',
        ExpressionAttributeValues: {
          ':now': new Date().toISOString(),
          ':tenant': tenantId,
          ...(by ? { ':by': storedActor(by) } : {}),
        },
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
    // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
    new GetCommand({ TableName: tableName, Key: keys.apiKey(keyHash), ConsistentRead: true }),
  );
  return Item ? toApiKey(Item) : undefined;
};
