import { recentUsageOf } from '../db/api-key-usage';
import {
  allApiKeysOf,
  apiKeyPage,
  apiKeysByHash,
  findApiKey,
  getApiKeyByHash,
  type KeyChanges,
  putApiKey,
  putKeyChanges,
  putKeyRevocation,
  putRolledApiKey,
  readKeyContext,
  readKeyContextWithScope,
  readScopeKpis,
  type SlotList,
  type StoredApiKey,
} from '../db/api-keys';
import type { Database } from '../db/client';
import { WriteConflict } from '../db/errors';
import { encodeScope } from '../db/key-scope';
import type { PageRequest } from '../db/pagination';
import { getTenantAndUsers } from '../db/users';
import type { Actor, ApiKey, KeyRef } from '../domain/api-key';
import {
  type AuditContext,
  type AuditDetails,
  type AuditEventType,
  auditEvent,
  NO_REQUEST,
  type RequestOrigin,
  type TenantAuditEvent,
} from '../domain/audit-event';
import type { Kpi } from '../domain/kpi';
import type { Feature, Plan } from '../domain/plan';
import type { Tenant } from '../domain/tenant';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { logAuditEvent, logger } from '../logger';
import type { Publish, WebhookEvent } from '../webhooks/events';
import { generateApiKey, hashApiKey, identificationPrefix } from './key-format';
import {
  API_KEY_LIMITS,
  assertChangeable,
  assertGracePeriod,
  assertRollable,
  assertSlotFree,
  holdsSlot,
  inGracePeriodOf,
  instant,
  ROLL_GRACE_HOURS,
  rollExpiries,
} from './rules';
import { type RecentUsage, recentUsage } from './usage';

/**
 * The use cases of API keys: create, roll, revoke and list. Each reads what it needs (lib/db), decides
 * by the rules (./rules.ts), and writes with conditions on what it read; a write that lost a race to a
 * concurrent change (a WriteConflict) is decided again from a fresh read. Every change is written with
 * its audit event in one transaction, in the name of whoever made it (`by`), from where the request
 * came (`origin`); the audit line follows once both are stored.
 *
 * Plan maximums: a tenant on a plan with a maximum has a slot list (lib/db/api-keys.ts) of the keys
 * that hold a slot. Creating and rolling write it in one transaction with the key items, so concurrent
 * creates cannot both take the last slot. Revoking and expiring do not touch it; instead, when the
 * list is full, a create reads the holders' key items (at most a plan's maximum, 5) and frees the
 * slots of keys that are revoked or expired by now. A tenant on the unlimited plan keeps no slot list:
 * creating a key is one PutItem, whatever the number of keys.
 */

/** A new key with its raw key: returned once, at creation, and never stored. */
export interface CreatedApiKey extends ApiKey {
  key: string;
}

const MAX_WRITE_ATTEMPTS = 25;

const backoff = (attempt: number) =>
  // Stryker disable next-line ArithmeticOperator: a backoff constant; only the wait between tries changes
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * 2 ** attempt)));

const tooManyConcurrentChanges = () =>
  new AppError('SERVICE_UNAVAILABLE', 'Too many concurrent key changes; retry.', {
    headers: { 'Retry-After': '1' },
  });

/**
 * Tells the tenant's webhooks about a key change that has happened. The change stands whatever
 * happens here: a failure to publish is logged (with the event's type and key id, no secret) and the
 * caller still gets its answer, as the change cannot be undone and repeating it publishes nothing.
 */
const announce = async (publish: Publish, event: WebhookEvent) => {
  try {
    await publish(event);
  } catch (error) {
    logger.error('Publishing a key event to webhooks failed', {
      event: event.type,
      keyId: event.data.keyId as string,
      error: error instanceof Error ? error.name : 'unknown',
    });
  }
};

/**
 * Who changed a key, as the audit log names them: a user with their e-mail, an operator as the
 * system acting in their name, secret scanning as GitHub's. Without one (the library called directly,
 * as the tests do), the service itself.
 */
export const auditContextOf = (by: Actor | undefined, origin: RequestOrigin = NO_REQUEST): AuditContext => {
  if (by === undefined) return { actor: { type: 'system', id: 'service' }, ...origin };
  switch (by.type) {
    case 'user':
      return { actor: { type: 'user', id: by.userId, email: by.email ?? null }, ...origin };
    case 'operator':
      return { actor: { type: 'system', id: `operator:${by.name}` }, ...origin };
    case 'secret-scanning':
      return { actor: { type: 'github_secret_scanning', id: by.source }, ...origin };
  }
};

/** A key's audit event: the key as its target, with its prefix and name among the details. */
const keyEvent = (
  context: AuditContext,
  type: AuditEventType,
  key: Pick<ApiKey, 'id' | 'tenantId' | 'prefix' | 'name'>,
  details: AuditDetails,
  now: number,
): TenantAuditEvent =>
  auditEvent(
    context,
    {
      type,
      tenantId: key.tenantId,
      target: { type: 'api_key', id: key.id },
      details: { keyPrefix: key.prefix, name: key.name, ...details },
    },
    now,
  );

/** How an actor appears in an event's data: by id or operator name, never an e-mail. */
const eventActor = (actor: Actor | undefined) =>
  actor ? (actor.type === 'user' ? { type: actor.type, userId: actor.userId } : actor) : null;

const keyNotFound = (keyId: string) => new AppError('NOT_FOUND', `API key ${keyId} not found.`);
const tenantNotFound = (tenantId: string) => new AppError('NOT_FOUND', `Tenant ${tenantId} not found.`);

/** A new key of `tenantId`: its raw key, its hash (the item's address) and the key as stored. */
const newKey = (
  input: Omit<
    ApiKey,
    | 'id'
    | 'prefix'
    | 'createdAt'
    | 'lastUsedAt'
    | 'revokedAt'
    | 'revokedBy'
    | 'rolledAt'
    | 'rolledBy'
    | 'replacedBy'
  >,
  now: number,
) => {
  const raw = generateApiKey();
  const key: ApiKey = {
    ...input,
    id: uuidv7(now),
    prefix: identificationPrefix(raw),
    createdAt: new Date(now).toISOString(),
    lastUsedAt: null,
    revokedAt: null,
    revokedBy: null,
    rolledAt: null,
    rolledBy: null,
    replacedBy: null,
  };
  return { raw, stored: { key, keyHash: hashApiKey(raw) } satisfies StoredApiKey };
};

/**
 * The slot holders after `leaving` gives up its slot, when one more key is to take one; the plan's
 * problem when the plan is full. Only for a plan with a maximum.
 */
const holdersWithRoom = async (
  db: Database,
  tenant: Tenant,
  slots: SlotList,
  now: number,
  leaving: string | undefined,
) => {
  const limit = API_KEY_LIMITS[tenant.plan] as number;
  let holders = slots.exists
    ? { ...slots.holders }
    : Object.fromEntries(
        (await allApiKeysOf(db, tenant.id))
          .filter(({ key }) => holdsSlot(key, now))
          .map(({ key, keyHash }) => [key.id, keyHash]),
      );
  // Stryker disable next-line ConditionalExpression: deleting an undefined member deletes nothing
  if (leaving) delete holders[leaving];
  if (Object.keys(holders).length >= limit) {
    const current = await apiKeysByHash(db, Object.values(holders));
    holders = Object.fromEntries(
      Object.entries(holders).filter(([, hash]) => holdsSlot(current.get(hash), now)),
    );
  }
  assertSlotFree(tenant.plan, Object.keys(holders).length);
  return holders;
};

/**
 * Each KPI of a scope must be a KPI of the tenant; checked against the items read in the create's
 * first round trip. Another tenant's KPI looks like a missing one.
 */
const assertScopeOfTenant = (kpiIds: string[], tenantId: string, kpis: (Kpi | undefined)[]) => {
  const errors = kpiIds.flatMap((id, index) =>
    kpis[index]?.tenantId === tenantId
      ? []
      : [{ path: `kpiIds[${index}]`, message: `No KPI of this organization has the id ${id}.` }],
  );
  if (errors.length > 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${errors.length} of the kpiIds are not KPIs of this organization.`,
      { errors },
    );
  }
};

/** Spec 2.7, 3, 8: a new active key, if the tenant's plan has room for it. */
export const createApiKey = async (
  db: Database,
  input: {
    tenantId: string;
    name: string;
    expiresAt?: string | null | undefined;
    /** 1 to 100 KPIs of the tenant; null or absent for every KPI. */
    kpiIds?: string[] | null | undefined;
    /** 1 to 20 CIDR blocks in their normal form (./inputs.ts); null or absent for any address. */
    allowedSources?: string[] | null | undefined;
    createdBy?: Actor | undefined;
    /** Where the request came from, for the audit event. */
    origin?: RequestOrigin | undefined;
  },
): Promise<CreatedApiKey> => {
  const kpiIds = input.kpiIds ?? null;
  if (kpiIds) encodeScope(kpiIds); // a scope that cannot be stored fails before any read
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const now = Date.now();
    const { tenant, slots, kpis } = await readKeyContextWithScope(db, input.tenantId, kpiIds ?? []);
    if (!tenant) throw tenantNotFound(input.tenantId);
    if (kpiIds) assertScopeOfTenant(kpiIds, tenant.id, kpis);
    const { raw, stored } = newKey(
      {
        tenantId: tenant.id,
        name: input.name,
        expiresAt: instant(input.expiresAt),
        kpiIds,
        allowedSources: input.allowedSources ?? null,
        createdBy: input.createdBy ?? null,
        replaces: null,
      },
      now,
    );
    const event = keyEvent(
      auditContextOf(input.createdBy, input.origin),
      'api_key.created',
      stored.key,
      {
        expiresAt: stored.key.expiresAt,
        scopedKpis: kpiIds?.length ?? null,
        allowedSources: stored.key.allowedSources?.join(' ') ?? null,
      },
      now,
    );
    try {
      if (API_KEY_LIMITS[tenant.plan] === null) await putApiKey(db, stored, event);
      else {
        const holders = await holdersWithRoom(db, tenant, slots, now, undefined);
        await putApiKey(db, stored, event, {
          list: slots,
          holders: { ...holders, [stored.key.id]: stored.keyHash },
        });
      }
      logAuditEvent(event);
      return { ...stored.key, key: raw };
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
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
 * Roll a key: a new key with the old key's name, scope and source allowlist, and the old key set to expire at the end
 * of the grace period (./rules.ts `rollExpiries`). The old key's slot passes to the new one in the same
 * transaction, so rolling works at the plan maximum, and two concurrent rolls of one key make one new
 * key: the other gets API_KEY_ALREADY_ROLLED.
 */
export const rollApiKey = async (
  db: Database,
  input: {
    tenantId: string;
    keyId: string;
    gracePeriodHours?: number | undefined;
    expiresAt?: string | null | undefined;
    by?: Actor | undefined;
    /** Where the request came from, for the audit event. */
    origin?: RequestOrigin | undefined;
  },
  /** Where `api_key.rolled` goes: every roll publishes it, whoever rolls. */
  publish: Publish,
): Promise<RolledApiKey> => {
  const graceHours = input.gracePeriodHours ?? ROLL_GRACE_HOURS.default;
  assertGracePeriod(graceHours);
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const [old, { tenant, slots }] = await Promise.all([
      findApiKey(db, input.tenantId, input.keyId),
      readKeyContext(db, input.tenantId),
    ]);
    if (!old) throw keyNotFound(input.keyId);
    const now = Date.now();
    assertRollable(old.key, now);
    if (!tenant) throw tenantNotFound(input.tenantId);
    const { oldExpiresAt, newExpiresAt } = rollExpiries(old.key, now, graceHours, input.expiresAt);
    const replaces: KeyRef = { id: old.key.id, prefix: old.key.prefix };
    const { raw, stored } = newKey(
      {
        tenantId: tenant.id,
        name: old.key.name,
        expiresAt: newExpiresAt,
        kpiIds: old.key.kpiIds,
        allowedSources: old.key.allowedSources,
        createdBy: input.by ?? null,
        replaces,
      },
      now,
    );
    const rolledAt = new Date(now).toISOString();
    const replacedBy: KeyRef = { id: stored.key.id, prefix: stored.key.prefix };
    const event = keyEvent(
      auditContextOf(input.by, input.origin),
      'api_key.rolled',
      old.key,
      {
        newKeyId: stored.key.id,
        newKeyPrefix: stored.key.prefix,
        oldKeyExpiresAt: oldExpiresAt,
        newKeyExpiresAt: newExpiresAt,
        gracePeriodHours: graceHours,
      },
      now,
    );
    try {
      const holders =
        API_KEY_LIMITS[tenant.plan] === null
          ? undefined
          : await holdersWithRoom(db, tenant, slots, now, old.key.id);
      await putRolledApiKey(
        db,
        {
          old,
          expiresAt: oldExpiresAt,
          replacedBy,
          rolledAt,
          rolledBy: input.by,
          created: stored,
          ...(holders
            ? { slots: { list: slots, holders: { ...holders, [stored.key.id]: stored.keyHash } } }
            : {}),
        },
        event,
      );
      logAuditEvent(event);
      const previous = {
        ...old.key,
        expiresAt: oldExpiresAt,
        replacedBy,
        rolledAt,
        rolledBy: input.by ?? null,
      };
      await announce(publish, {
        type: 'api_key.rolled',
        tenantId: tenant.id,
        occurredAt: rolledAt,
        data: {
          keyId: old.key.id,
          keyPrefix: old.key.prefix,
          name: old.key.name,
          newKeyId: stored.key.id,
          newKeyPrefix: stored.key.prefix,
          oldKeyExpiresAt: oldExpiresAt,
          rolledBy: eventActor(input.by),
        },
      });
      // The answer names who made the old key as the list does, with the e-mail.
      const { emails } = await readActors(db, tenant.id, [previous]);
      return { created: { ...stored.key, key: raw }, previous: withEmails(previous, emails) };
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      if (error.on === 'key') {
        // The index read may lag behind a concurrent roll, revocation or deletion: the key item says which.
        const fresh = await getApiKeyByHash(db, old.keyHash);
        if (!fresh) throw keyNotFound(input.keyId);
        assertRollable(fresh, Date.now());
      }
      await backoff(attempt);
    }
  }
  throw tooManyConcurrentChanges();
};

/** How a revocation is recorded when it is not a plain `api_key.revoked` (a key found in public). */
export interface RevocationRecord {
  type: AuditEventType;
  details: AuditDetails;
}

/**
 * Revokes a key of the tenant (spec 3: revoked keys are never reactivated); its slot is freed by the
 * next create that needs it. Another tenant's key id is NOT_FOUND. Revoking a revoked key changes
 * nothing: the first revocation's time and actor stay, and nothing is recorded.
 *
 * Revoking a key made by a roll also ends the grace period of the key it replaced, if that one still
 * works: whoever revokes the replacement (leaked, or rolled by mistake) would otherwise leave the old
 * key working without a replacement, "active, replaced by" a revoked key. Both changes and their one
 * audit event are one transaction; a revocation that an earlier version left half done (the key
 * revoked, its predecessor still in grace) is finished by the next one, and recorded then.
 * Returns the key whose grace period ended, if one did, and the event recorded, if any. The revocation
 * that changes the key publishes `api_key.revoked`, whoever revokes (the API, the operator CLI, any
 * later caller): this function is the one place every revocation passes through.
 */
export const revokeApiKey = async (
  db: Database,
  tenantId: string,
  keyId: string,
  by: Actor | undefined,
  /** Where `api_key.revoked` goes: published once, by the revocation that changed the key. */
  publish: Publish,
  {
    origin,
    record = { type: 'api_key.revoked', details: {} },
  }: { origin?: RequestOrigin | undefined; record?: RevocationRecord } = {},
): Promise<{ graceEnded: KeyRef | undefined; event: TenantAuditEvent | undefined }> => {
  let found = await findApiKey(db, tenantId, keyId);
  if (!found) throw keyNotFound(keyId);
  let replaced = found.key.replaces ? await findApiKey(db, tenantId, found.key.replaces.id) : undefined;
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const now = Date.now();
    const at = new Date(now).toISOString();
    const revoking = found.key.revokedAt === null;
    const ending = replaced !== undefined && inGracePeriodOf(replaced.key, found.key.id, now);
    // Stryker disable next-line ObjectLiteral: an answer without the two fields reads the same to every caller
    if (!revoking && !ending) return { graceEnded: undefined, event: undefined };
    const event = keyEvent(
      auditContextOf(by, origin),
      record.type,
      found.key,
      // Stryker disable next-line OptionalChaining: `ending` holds only with a replaced key; the chain is for the types
      { ...record.details, revoked: revoking, graceEndedOf: ending ? (replaced?.key.id ?? null) : null },
      now,
    );
    try {
      await putKeyRevocation(
        db,
        {
          at,
          ...(revoking ? { revoke: { stored: found, by } } : {}),
          ...(ending && replaced ? { endGrace: { stored: replaced, replacementId: found.key.id } } : {}),
        },
        event,
      );
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      // The index read may lag behind a concurrent change: the key items say what holds now.
      const [fresh, freshReplaced]: (ApiKey | undefined)[] = await Promise.all([
        getApiKeyByHash(db, found.keyHash),
        replaced ? getApiKeyByHash(db, replaced.keyHash) : undefined,
      ]);
      if (!fresh) throw keyNotFound(keyId);
      found = { key: fresh, keyHash: found.keyHash };
      // Stryker disable next-line LogicalOperator: a replaced key gone meanwhile ends no grace period either way
      replaced = replaced && freshReplaced ? { key: freshReplaced, keyHash: replaced.keyHash } : undefined;
      await backoff(attempt);
      continue;
    }
    logAuditEvent(event);
    if (revoking) {
      await announce(publish, {
        type: 'api_key.revoked',
        tenantId,
        occurredAt: at,
        data: {
          keyId: found.key.id,
          keyPrefix: found.key.prefix,
          name: found.key.name,
          revokedBy: eventActor(by),
        },
      });
    }
    return { graceEnded: ending ? (found.key.replaces ?? undefined) : undefined, event };
  }
  throw tooManyConcurrentChanges();
};

/**
 * Changes an active key of the tenant: its name, its source allowlist (null: any address), its KPI
 * scope (null: every KPI), or several; what the change leaves out stays as it is. A new scope names
 * KPIs of the tenant only, as at creation (400 naming each id that is not); a push checks the scope
 * from its fresh read of the key, so the change applies to the very next push. A revoked or expired key is API_KEY_NOT_ACTIVE, also when
 * it stopped between the read and the write (the write is conditioned on it). Another tenant's key id
 * is NOT_FOUND. Answers the key as the list shows it: the e-mails of its audit trail and its
 * `lastUsedAt`, read in parallel after the write.
 */
export const updateApiKey = async (
  db: Database,
  input: {
    tenantId: string;
    keyId: string;
    changes: KeyChanges;
    by?: Actor | undefined;
    /** Where the request came from, for the audit event. */
    origin?: RequestOrigin | undefined;
  },
  now = Date.now(),
): Promise<ApiKey> => {
  const found = await findApiKey(db, input.tenantId, input.keyId);
  if (!found) throw keyNotFound(input.keyId);
  assertChangeable(found.key, now);
  const { name, allowedSources, kpiIds } = input.changes;
  if (kpiIds) {
    encodeScope(kpiIds); // a scope that cannot be stored fails before any read
    assertScopeOfTenant(kpiIds, input.tenantId, await readScopeKpis(db, kpiIds));
  }
  const event = keyEvent(
    auditContextOf(input.by, input.origin),
    'api_key.updated',
    found.key,
    {
      renamed: name !== undefined,
      // Absent: the list was not changed; `any`: the key works from any address again.
      ...(allowedSources !== undefined ? { allowedSources: allowedSources?.join(' ') ?? 'any' } : {}),
      // Absent: the scope was not changed; `all`: the key may push to every KPI again.
      ...(kpiIds !== undefined ? { scopedKpis: kpiIds?.length ?? 'all' } : {}),
    },
    now,
  );
  const changed = await putKeyChanges(db, found, input.changes, new Date(now).toISOString(), event);
  if (!changed) {
    // Revoked or expired since the read: the key item says which.
    const fresh = await getApiKeyByHash(db, found.keyHash);
    if (!fresh) throw keyNotFound(input.keyId);
    assertChangeable(fresh, Date.now());
    // Stryker disable next-line all: unreachable while the write's condition matches assertChangeable
    throw new Error('The key change was refused, though the key is active.');
  }
  logAuditEvent(event);
  const [days, { emails }] = await Promise.all([
    recentUsageOf(db, [changed.keyHash], now),
    readActors(db, input.tenantId, [changed.key]),
  ]);
  return {
    ...withEmails(changed.key, emails),
    // Stryker disable next-line ArrayDeclaration: recentUsageOf answers every key it is asked for; the default is for the types
    lastUsedAt: recentUsage(days.get(changed.keyHash) ?? [], now).lastUsedAt,
  };
};

/** What the key list says about the tenant's plan, so a client can tell "2 of 3 keys used". */
export interface KeyPlan {
  name: Plan;
  /** Active keys the plan allows; null: unlimited. */
  apiKeyLimit: number | null;
  features: Feature[];
}

export interface ApiKeyList {
  items: (ApiKey & { usage: RecentUsage })[];
  nextCursor?: string;
  /** The tenant's plan; null only if the tenant record is missing. */
  plan: KeyPlan | null;
}

/**
 * The tenant's keys, oldest first, each with its last 30 days of use and `lastUsedAt` from its days of
 * usage, the e-mails of the users named in their audit trail, and the tenant's plan: one query of the
 * index, then a batch read and one Query per key in parallel, so the push path's writes never touch
 * the index.
 */
export const listApiKeys = async (
  db: Database,
  tenantId: string,
  page: PageRequest,
  now = Date.now(),
): Promise<ApiKeyList> => {
  const found = await apiKeyPage(db, tenantId, page);
  const [stored, { emails, tenant }] = await Promise.all([
    recentUsageOf(
      db,
      found.items.map(({ keyHash }) => keyHash),
      now,
    ),
    readActors(
      db,
      tenantId,
      found.items.map(({ key }) => key),
    ),
  ]);
  const items = found.items.map(({ key, keyHash }) => ({
    ...withEmails(key, emails),
    // Stryker disable next-line ArrayDeclaration: recentUsageOf answers for every key it is asked about
    ...recentUsage(stored.get(keyHash) ?? [], now),
  }));
  const plan = tenant
    ? { name: tenant.plan, apiKeyLimit: API_KEY_LIMITS[tenant.plan], features: tenant.features }
    : null;
  return found.nextCursor ? { items, nextCursor: found.nextCursor, plan } : { items, plan };
};

/**
 * The e-mails of the users named in the keys' audit trail (one batch read, with the tenant's item):
 * a key stores who changed it by user id, since an e-mail can change.
 */
const readActors = async (db: Database, tenantId: string, apiKeys: ApiKey[]) => {
  const userIds = [
    ...new Set(
      apiKeys.flatMap((key) =>
        [key.createdBy, key.revokedBy, key.rolledBy].flatMap((actor) =>
          actor?.type === 'user' ? [actor.userId] : [],
        ),
      ),
    ),
  ];
  const { tenant, users } = await getTenantAndUsers(db, tenantId, userIds);
  return { emails: new Map(users.map((user) => [user.id, user.email])), tenant };
};

/** A key with the e-mail of each user in its audit trail (null for a user who is gone). */
const withEmails = (key: ApiKey, emails: Map<string, string>): ApiKey => {
  const withEmail = (actor: Actor | null): Actor | null =>
    actor?.type === 'user' ? { ...actor, email: emails.get(actor.userId) ?? null } : actor;
  return {
    ...key,
    createdBy: withEmail(key.createdBy),
    revokedBy: withEmail(key.revokedBy),
    rolledBy: withEmail(key.rolledBy),
  };
};
