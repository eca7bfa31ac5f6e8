import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { TenantAuditEvent } from '../domain/audit-event';
import {
  type PullIntegration,
  type PullRun,
  pullIntegrationSchema,
  pullRunSchema,
  RUN_ERROR_CLASSES,
  type RunErrorClass,
} from '../domain/pull-integration';
import { id } from '../domain/values';
import { writtenWithEvent } from './audit-events';
import type { Database } from './client';
import { dueEntries } from './due-indexes';
import { defineEntity, inKey } from './entity';
import { isConditionalCheckFailed, writtenUnlessConditionFails } from './errors';
import { keys } from './keys';
import { type Page, type PageRequest, queryPage } from './pagination';
import { removeCounted, type TenantCount, writeCounted } from './tenant-counts';

/**
 * Pull integrations, their runs and their usage. An integration lives in its tenant's partition
 * (reading one needs the tenant, so another tenant's id finds nothing); while it is not disabled it is
 * also in the sparse index gsi2 in a shard of `PULLDUE`, sorted by when it is due, which is all the scheduler
 * reads. Its runs and its days of usage are in a partition of its own and expire after 90 days.
 * Every item read is parsed by its entity's schema. What a run decides is decided above (lib/pull/).
 * Creating, changing, deleting and disabling an integration are each written with their audit event in
 * one transaction.
 */

/** How long runs and days of usage are kept. */
export const PULL_RETENTION_DAYS = 90;

/** The index entry of an integration that the scheduler should run at its `nextRunAt` (none while disabled). */
const dueEntry = (integration: Pick<PullIntegration, 'status' | 'nextRunAt' | 'tenantId' | 'id'>) =>
  integration.status === 'disabled' || integration.nextRunAt === null
    ? {}
    : keys.pullDueIndex(integration.nextRunAt, integration.tenantId, integration.id);

/**
 * An integration as stored: the entity, its credentials sealed (null for `auth: none`), and the slot a
 * scheduler claimed that its run has not recorded yet (lib/pull/run.ts). In the tenant's partition, and
 * in the due index while it is not disabled.
 */
export const pullIntegrations = /* @__PURE__ */ defineEntity(() => ({
  type: 'PULL',
  schema: z.extend(pullIntegrationSchema, {
    sealedSecrets: z.nullable(z.string()),
    claimedSlot: z.nullable(z.string()),
  }),
  key: (integration) => ({
    ...keys.pullIntegration(integration.tenantId, integration.id),
    ...dueEntry(integration),
  }),
  // The bindings' first name: the items written under it are read as they are, with no migration.
  stored: { bindings: { attribute: 'measurements' } },
}));
export type StoredIntegration = Parameters<typeof pullIntegrations.toItem>[0];

const toStored = (item: Record<string, unknown>): StoredIntegration => pullIntegrations.fromItem(item);

/** The count item of a tenant's integrations, which holds the tenant to its plan's maximum under concurrency. */
export const pullIntegrationCounts = /* @__PURE__ */ defineEntity(() => ({
  type: 'PULLCOUNT',
  schema: z.object({ tenantId: id, count: z.int() }),
  key: (counted) => keys.pullIntegrationCount(counted.tenantId),
  stored: { tenantId: inKey('pk', keys.tenant) },
}));

// Literals and a function only, so that a bundle that never counts drops it (no property read at load).
const PULL_INTEGRATION_COUNT: TenantCount = {
  type: 'PULLCOUNT',
  key: (tenantId) => keys.pullIntegrationCount(tenantId),
  subject: 'integration count',
};

/** Why a new integration was not written: the tenant already has `max`. */
export class IntegrationLimitReached extends Error {
  override name = 'IntegrationLimitReached';
}

/**
 * A new integration, counted, and its audit event, in one transaction; its first run is due at once
 * (`nextRunAt`). The count item allows at most `max` integrations per tenant (`null`: any number, still
 * counted), also when several are created at once. A transaction that met another on the count item
 * is a WriteConflict: nothing was written, and the caller tries again.
 */
export const putIntegration = (
  db: Database,
  stored: StoredIntegration,
  event: TenantAuditEvent,
  max: number | null = null,
): Promise<void> =>
  writeCounted(
    db,
    PULL_INTEGRATION_COUNT,
    stored.tenantId,
    max,
    {
      Put: {
        TableName: db.tableName,
        Item: pullIntegrations.toItem(stored),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    event,
    (cause) => new IntegrationLimitReached(`at most ${max} integrations`, { cause }),
  );

/** How many integrations a tenant has, as its count item says (strongly consistent). */
export const integrationCount = async ({ client, tableName }: Database, tenantId: string) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: keys.pullIntegrationCount(tenantId), ConsistentRead: true }),
  );
  return Item ? pullIntegrationCounts.fromItem(Item).count : 0;
};

/** One integration of a tenant, strongly consistent; undefined for an unknown id or another tenant's. */
export const getIntegration = async (
  { client, tableName }: Database,
  tenantId: string,
  id: string,
): Promise<StoredIntegration | undefined> => {
  const { Item } = await client.send(
    // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
    new GetCommand({ TableName: tableName, Key: keys.pullIntegration(tenantId, id), ConsistentRead: true }),
  );
  return Item ? toStored(Item) : undefined;
};

/** One page of a tenant's integrations, oldest first (ids are UUIDv7). */
export const integrationPage = (
  db: Database,
  tenantId: string,
  page: PageRequest,
): Promise<Page<StoredIntegration>> => {
  const { pk, skPrefix } = keys.pullIntegrationsOfTenant(tenantId);
  return queryPage(
    db,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
    },
    { pk },
    page,
    toStored,
    { name: 'sk', prefix: skPrefix },
  );
};

/**
 * Writes an integration's settings and state after a change (PATCH), with its audit event: the whole
 * item, its index entry moved to the new `nextRunAt`. Only an integration that still exists; false
 * when it was deleted.
 */
export const replaceIntegration = (db: Database, stored: StoredIntegration, event: TenantAuditEvent) =>
  writtenWithEvent(
    db,
    {
      Put: {
        TableName: db.tableName,
        // A change ends any claim: its run, should it finish, records nothing.
        Item: pullIntegrations.toItem({ ...stored, claimedSlot: null }),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    event,
  );

/**
 * Deletes an integration, with its audit event; false when there was none. Its runs and usage expire
 * with their `ttl`.
 */
export const deleteIntegration = (
  db: Database,
  tenantId: string,
  id: string,
  event: TenantAuditEvent,
): Promise<boolean> =>
  removeCounted(
    db,
    PULL_INTEGRATION_COUNT,
    tenantId,
    {
      Delete: {
        TableName: db.tableName,
        Key: keys.pullIntegration(tenantId, id),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    event,
  );

/** A due integration as the index names it: the entry (the slot it marks) and the item's address. */
export interface DueEntry {
  tenantId: string;
  integrationId: string;
  /** The index sort key read: the slot, as the conditional claim compares it. */
  entry: string;
  /** When it was due. */
  dueAt: string;
}

const dueEntrySchema = z.object({
  gsi2sk: z.string(),
  tenantId: z.string(),
  id: z.string(),
  nextRunAt: z.string(),
});

/**
 * The integrations due at `now`, oldest first: one range Query per shard of the index (`gsi2sk` up to
 * `now`), in parallel, of at most `perShard` entries each, so the requests are a fixed number whatever
 * waits for later, and a pass claims a bounded number; the due entries past it are read by the next
 * pass. Only the attributes the claim needs are returned.
 */
export const dueIntegrations = async (db: Database, now: number, perShard = 100): Promise<DueEntry[]> =>
  (
    await dueEntries(
      db,
      (shard) => keys.pullDue(shard).gsi2pk,
      now,
      perShard,
      'gsi2sk, tenantId, id, nextRunAt',
    )
  ).items
    .map((item) => {
      const { gsi2sk, tenantId, id } = dueEntrySchema.parse(item);
      return { tenantId, integrationId: id, entry: gsi2sk, dueAt: gsi2sk.slice(0, 24) };
    })
    .sort((a, b) => (a.entry < b.entry ? -1 : a.entry > b.entry ? 1 : 0));

/**
 * Claims a due slot for one run: moves the index entry to `leaseUntil` (when the slot is due again
 * should its run never finish) and records the slot, only if the entry is still the one read. Of two
 * schedulers reading the same entry exactly one claims it; false for the other.
 */
export const claimSlot = (
  { client, tableName }: Database,
  due: DueEntry,
  leaseUntil: string,
): Promise<boolean> =>
  writtenUnlessConditionFails(
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.pullIntegration(due.tenantId, due.integrationId),
        UpdateExpression: 'SET gsi2sk = :lease, claimedSlot = :slot',
        ConditionExpression: 'gsi2sk = :entry',
        ExpressionAttributeValues: {
          ':entry': due.entry,
          ':slot': due.entry,
          ':lease': keys.pullDueIndex(leaseUntil, due.tenantId, due.integrationId).gsi2sk,
        },
      }),
    ),
  );

/** The state a run leaves an integration in. */
export type RunState = Pick<
  PullIntegration,
  'status' | 'consecutiveFailures' | 'failingSince' | 'disabledAt' | 'lastRun' | 'nextRunAt'
>;

/**
 * Records a run's outcome on the integration and moves its index entry to the next run (or out of the
 * index when it is disabled). A scheduled run gives its claimed slot, and is recorded only while that
 * claim stands (a duplicate delivery of the same slot records nothing); a manual run none. Answers the
 * status the integration had before, or undefined when nothing was written (deleted, or the slot is not
 * claimed any more). A state that disables the integration comes with its audit event (`record`): both
 * are written in one transaction, only while the integration still has the status the run saw.
 */
export const putRunState = async (
  db: Database,
  integration: Pick<PullIntegration, 'tenantId' | 'id'>,
  state: RunState,
  slot: string | null,
  record?: { event: TenantAuditEvent; ifStatus: PullIntegration['status'] },
): Promise<PullIntegration['status'] | undefined> => {
  const { client, tableName } = db;
  const due = dueEntry({ ...state, tenantId: integration.tenantId, id: integration.id });
  // As the entity stores them: a null field is absent, so it is removed.
  const fields: Record<string, unknown> = { ...state, ...due };
  const set = Object.keys(fields).filter((name) => fields[name] !== null);
  const remove = [
    ...Object.keys(fields).filter((name) => fields[name] === null),
    'claimedSlot',
    ...('gsi2pk' in due ? [] : ['gsi2pk', 'gsi2sk']),
  ];
  const update = {
    TableName: tableName,
    Key: keys.pullIntegration(integration.tenantId, integration.id),
    UpdateExpression: `SET ${set.map((name) => `#${name} = :${name}`).join(', ')} REMOVE ${remove
      .map((name) => `#${name}`)
      .join(', ')}`,
    ConditionExpression: `${slot === null ? 'attribute_exists(pk)' : 'claimedSlot = :slot'}${record ? ' AND #status = :seenStatus' : ''}`,
    ExpressionAttributeNames: Object.fromEntries(
      // The state always sets the status, which the condition with `record` names too.
      [...set, ...remove].map((name) => [`#${name}`, name]),
    ),
    ExpressionAttributeValues: {
      ...Object.fromEntries(set.map((name) => [`:${name}`, fields[name]])),
      ...(slot === null ? {} : { ':slot': slot }),
      ...(record ? { ':seenStatus': record.ifStatus } : {}),
    },
  };
  if (record) {
    return (await writtenWithEvent(db, { Update: update }, record.event)) ? record.ifStatus : undefined;
  }
  try {
    const { Attributes } = await client.send(new UpdateCommand({ ...update, ReturnValues: 'UPDATED_OLD' }));
    // Stryker disable next-line OptionalChaining: UPDATED_OLD answers the attributes the update set, the status among them
    return pullIntegrationSchema.shape.status.parse(Attributes?.status);
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
};

/**
 * A run of an integration, in the integration's partition; it expires (`ttl`) after the retention.
 * The declarations are marked pure, so a function that never touches runs or usage (creating an
 * integration) bundles neither, nor their keys.
 */
export const pullRuns = /* @__PURE__ */ defineEntity(() => ({
  type: 'PULLRUN',
  schema: pullRunSchema,
  key: (run) => keys.pullRun(run.integrationId, run.id),
}));

/** A run's record; `expiresAt` (epoch seconds) is when it leaves the log. */
export const putRun = async ({ client, tableName }: Database, run: PullRun, expiresAt: number) => {
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...pullRuns.toItem(run), ttl: expiresAt },
    }),
  );
};

/** One page of an integration's runs, newest first (ids are UUIDv7). */
export const runPage = (db: Database, integrationId: string, page: PageRequest): Promise<Page<PullRun>> => {
  const { pk, skPrefix } = keys.pullRuns(integrationId);
  return queryPage(
    db,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ScanIndexForward: false,
    },
    { pk },
    page,
    (item) => pullRuns.fromItem(item),
    { name: 'sk', prefix: skPrefix },
  );
};

/**
 * Counts a run on its integration's day, as a key's usage counts a push: one atomic `ADD` of the run,
 * the measurements it stored and, for a failed fetch, its error class. The day item is under 1 KB
 * and in no index: one write unit.
 */
export const countRun = async (
  { client, tableName }: Database,
  integrationId: string,
  day: string,
  {
    measurements,
    errorClass,
    failed,
  }: { measurements: number; errorClass: RunErrorClass | null; failed: boolean },
) => {
  const counters: Record<string, number> = { runs: 1, measurements };
  if (failed) counters.failed = 1;
  if (errorClass) counters[`failed_${errorClass}`] = 1;
  const names = Object.keys(counters);
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.pullUsageDay(integrationId, day),
      UpdateExpression: `SET #type = :type, #ttl = :ttl ADD ${names.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
      ExpressionAttributeNames: {
        '#type': 'type',
        '#ttl': 'ttl',
        ...Object.fromEntries(names.map((name, i) => [`#c${i}`, name])),
      },
      ExpressionAttributeValues: {
        ':type': pullUsageDays.type,
        ':ttl': Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + (PULL_RETENTION_DAYS + 1) * 86_400,
        ...Object.fromEntries(names.map((name, i) => [`:c${i}`, counters[name]])),
      },
    }),
  );
};

/** One day of an integration's usage; a day without runs has no item. */
export const usageDaySchema = z.object({
  date: z.string(),
  runs: z.int(),
  measurements: z.int(),
  failed: z.int(),
  failures: z
    .object(
      Object.fromEntries(RUN_ERROR_CLASSES.map((c) => [c, z.int()])) as Record<RunErrorClass, z.ZodMiniInt>,
    )
    .check(z.describe('Failed runs by error class.')),
});
export type PullUsageDay = z.output<typeof usageDaySchema>;

/**
 * A day of an integration's usage, in the integration's partition. Its counters are added by
 * `countRun` (atomic `ADD`s); the day is the sort key's and the integration the partition's; a counter
 * not added yet reads as 0, and the failures by class are one attribute each (`failed_<class>`).
 */
export const pullUsageDays = /* @__PURE__ */ defineEntity(() => ({
  type: 'PULLUSAGE',
  schema: z.extend(usageDaySchema, { integrationId: z.string() }),
  key: (day) => keys.pullUsageDay(day.integrationId, day.date),
  hidden: ['integrationId'],
  stored: {
    integrationId: inKey('pk', keys.pullUsageDay),
    date: inKey('sk', keys.pullUsageDay),
    runs: { default: 0 },
    measurements: { default: 0 },
    failed: { default: 0 },
    failures: {
      read: (item) => Object.fromEntries(RUN_ERROR_CLASSES.map((c) => [c, item[`failed_${c}`] ?? 0])),
      write: (failures) => Object.fromEntries(RUN_ERROR_CLASSES.map((c) => [`failed_${c}`, failures[c]])),
    },
  },
}));

/** The integration's days from `from` to `to` (inclusive, `YYYY-MM-DD`), oldest first: one Query. */
export const usageDaysOf = async (
  { client, tableName }: Database,
  integrationId: string,
  from: string,
  to: string,
): Promise<PullUsageDay[]> => {
  // Stryker disable next-line ArrayDeclaration: DynamoDB always answers a Query with Items
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.pullUsageDay(integrationId, from).pk,
        ':from': keys.pullUsageDay(integrationId, from).sk,
        ':to': keys.pullUsageDay(integrationId, to).sk,
      },
    }),
  );
  return Items.map((item) => pullUsageDays.fromItem(item));
};
