import {
  GetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { auditEvent, operatorContext, type TenantAuditEvent } from '../domain/audit-event';
import { KPI_CADENCE_DEFAULTS, KPI_TARGET_DEFAULTS, type Kpi, type KpiType, kpiSchema } from '../domain/kpi';
import type { Measurement } from '../domain/measurement';
import { DEFAULT_KPI_PERIOD, type KpiPeriod } from '../domain/period';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { auditEventPut } from './audit-events';
import type { Database } from './client';
import { defineEntity, entityUpdate } from './entity';
import { cancellationReasons, WriteConflict, writtenUnlessConditionFails } from './errors';
import { keys } from './keys';
import { toMeasurement } from './measurements';
import { type Page, type PageRequest, queryPage, queryPrefix } from './pagination';
import { type TenantCount, writeCounted } from './tenant-counts';
import { tenantExists, tenantMissing } from './tenants';

/**
 * A KPI item: in its own partition (its measurements share it), in its tenant's index partition, and
 * while it has a cadence in the alert check's (gsi2). Its type is stored as `kpiType`, since `type` is
 * every item's entity. A KPI stored before KPIs had target rules or a cadence reads with the defaults.
 */
export const kpis = /* @__PURE__ */ defineEntity(() => ({
  type: 'KPI',
  schema: kpiSchema,
  key: (kpi) => ({
    ...keys.kpi(kpi.id),
    ...keys.kpiIndex(kpi.tenantId, kpi.id, kpi.cycleId, kpi.archivedAt),
    // Due for a look at once: the check reads the KPI's arrivals and moves the entry to when it goes quiet.
    ...(kpi.cadence === 'none' ? {} : keys.kpiQuietIndex(kpi.id, kpi.createdAt)),
  }),
  stored: {
    type: { attribute: 'kpiType' },
    // A KPI stored before KPIs had a period is monthly, the interface's default; the operator's
    // `infer-kpi-periods` stores the period its cadence and history show (scripts/admin.ts).
    period: { default: DEFAULT_KPI_PERIOD },
    direction: { default: KPI_TARGET_DEFAULTS.direction },
    tolerance: { default: KPI_TARGET_DEFAULTS.tolerance },
    qualitative: { default: KPI_TARGET_DEFAULTS.qualitative },
    cadence: { default: KPI_CADENCE_DEFAULTS.cadence },
    graceHours: { default: KPI_CADENCE_DEFAULTS.graceHours },
  },
}));

export const toKpi = (item: Record<string, unknown>): Kpi => kpis.fromItem(item);

export type KpiTargetRule = Pick<Kpi, 'direction' | 'tolerance' | 'qualitative'>;
/** What an ADMIN may change of a KPI: its target rule and its expected cadence. */
export type KpiSettings = KpiTargetRule & Pick<Kpi, 'cadence' | 'graceHours'>;

/** The tenant's count of live KPIs, which holds it to its plan's maximum (lib/domain/plan.ts). */
export const kpiCount: TenantCount = { type: 'KPICOUNT', key: keys.kpiCount, subject: 'kpi count' };

/** A new KPI or a restored one would pass the tenant's plan maximum of live KPIs. */
export class KpiLimitReached extends Error {
  override name = 'KpiLimitReached';
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A reference of a KPI that must hold in the same transaction as its write, and what its failure means. */
interface Reference {
  item: TransactItem;
  failed: () => Error;
}

const missing = (field: 'cycleId' | 'ownerId', value: string) =>
  new AppError(
    'VALIDATION_FAILED',
    `${field} ${value} is not a ${field === 'cycleId' ? 'strategic cycle' : 'user'} of this organization.`,
    {
      errors: [
        {
          path: field,
          message: `must be a ${field === 'cycleId' ? 'strategic cycle' : 'user'} of this organization`,
        },
      ],
    },
  );

/** One KPI more (`by: 1`) or fewer (`-1`) in a cycle of the tenant, which must exist. */
const cycleCount = (tableName: string, tenantId: string, cycleId: string, by: 1 | -1): Reference => ({
  item: {
    Update: {
      TableName: tableName,
      Key: keys.strategicCycle(tenantId, cycleId),
      UpdateExpression: 'ADD #kpiCount :by',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#kpiCount': 'kpiCount' },
      ExpressionAttributeValues: { ':by': by },
    },
  },
  failed: () => missing('cycleId', cycleId),
});

/** The owner must be a user of the tenant. */
const ownerExists = (tableName: string, tenantId: string, ownerId: string): Reference => ({
  item: {
    ConditionCheck: {
      TableName: tableName,
      Key: keys.user(tenantId, ownerId),
      ConditionExpression: 'attribute_exists(pk)',
    },
  },
  failed: () => missing('ownerId', ownerId),
});

/** The references a KPI's write must hold: the cycle it joins (and the one it leaves), its owner. */
const referencesOf = (tableName: string, before: Kpi | undefined, after: Kpi): Reference[] => [
  ...(before?.cycleId !== undefined && before.cycleId !== after.cycleId
    ? [cycleCount(tableName, after.tenantId, before.cycleId, -1)]
    : []),
  ...(after.cycleId !== undefined && before?.cycleId !== after.cycleId
    ? [cycleCount(tableName, after.tenantId, after.cycleId, 1)]
    : []),
  ...(after.ownerId !== undefined && before?.ownerId !== after.ownerId
    ? [ownerExists(tableName, after.tenantId, after.ownerId)]
    : []),
];

/** The error a failed reference of a cancelled transaction means, its items after the first `offset`. */
const referenceFailure = (error: unknown, references: Reference[], offset: number): Error | undefined => {
  const reasons = cancellationReasons(error) ?? [];
  const index = references.findIndex((_, i) => reasons[offset + i] === 'ConditionalCheckFailed');
  return index === -1 ? undefined : references[index]?.failed();
};

export type NewKpi = Omit<Kpi, 'id' | 'tenantId' | 'createdAt' | 'archivedAt' | keyof KpiSettings> &
  Partial<KpiSettings>;

/**
 * Creates a KPI of an existing tenant with its `kpi.created` event (`eventOf`), counted among its live
 * KPIs: at most `max` (null: any number, still counted; the operator's CLI), past it `KpiLimitReached`.
 * The tenant's existence, the cycle (whose count of KPIs it raises) and the owner are conditions of
 * the same transaction, so no caller can create a KPI of a tenant, cycle or user that does not exist.
 * A concurrent creation that met this one on the count is a WriteConflict (try again).
 */
export const createKpi = async (
  db: Database,
  tenantId: string,
  input: Omit<NewKpi, 'period'> & { period?: KpiPeriod | undefined },
  { max = null, eventOf }: { max?: number | null; eventOf?: (kpi: Kpi) => TenantAuditEvent } = {},
): Promise<Kpi> => {
  const defined = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  const kpi: Kpi = {
    id: uuidv7(),
    tenantId,
    ...KPI_TARGET_DEFAULTS,
    ...KPI_CADENCE_DEFAULTS,
    ...defined,
    type: input.type,
    name: input.name,
    period: input.period ?? DEFAULT_KPI_PERIOD,
    createdAt: new Date().toISOString(),
  };
  const event =
    eventOf?.(kpi) ??
    auditEvent(operatorContext('create-kpi'), {
      type: 'kpi.created',
      tenantId,
      target: { type: 'kpi', id: kpi.id },
      details: { name: kpi.name, type: kpi.type, period: kpi.period },
    });
  const references = referencesOf(db.tableName, undefined, kpi);
  try {
    await writeCounted(
      db,
      kpiCount,
      tenantId,
      max,
      {
        Put: {
          TableName: db.tableName,
          Item: kpis.toItem(kpi),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      event,
      (cause) => new KpiLimitReached(`The tenant has ${max} live KPIs.`, { cause }),
      [...references.map((reference) => reference.item), tenantExists(db.tableName, tenantId)],
    );
  } catch (error) {
    throw referenceFailure(error, references, 3) ?? tenantMissing(error, tenantId);
  }
  return kpi;
};

/** A KPI of the tenant as read for a change, and the version of its settings that the change is based on. */
export interface KpiForChange {
  kpi: Kpi;
  /** Its `updatedAt`: when its settings last changed; null before the first change. */
  version: string | null;
}

/**
 * A KPI of the tenant, strongly consistent, for a change of its settings; another tenant's KPI is
 * undefined, like a missing one.
 */
export const readKpiForChange = async (
  { client, tableName }: Database,
  tenantId: string,
  kpiId: string,
): Promise<KpiForChange | undefined> => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: keys.kpi(kpiId), ConsistentRead: true }),
  );
  const kpi = Item ? toKpi(Item) : undefined;
  if (kpi?.tenantId !== tenantId) return undefined;
  return { kpi, version: typeof Item?.updatedAt === 'string' ? Item.updatedAt : null };
};

/**
 * Writes a KPI as changed (`updated`, the whole KPI) with its audit event, in one transaction, only
 * while it is still at the version read: a concurrent change is a WriteConflict (read again, decide
 * again). Its index entries follow (lib/db/entity.ts `entityUpdate`): a new cycle or state moves its
 * list entry, a cadence other than `none` puts it in the alert check's index, due at once (at its
 * creation, before any run) so that the next check looks at it under the new settings, and `none`
 * takes it out, along with any quiet spell it was notified of. A KPI that leaves a cycle
 * counts one fewer there and one more in the cycle it joins (which must exist); an owner must be a user
 * of the tenant; an archived KPI leaves the tenant's count of live KPIs and a restored one joins it
 * again, at most `max` (else `KpiLimitReached`). `at` becomes the new version.
 */
export const putKpiChange = async (
  db: Database,
  { kpi, version }: KpiForChange,
  updated: Kpi,
  at: string,
  event: TenantAuditEvent,
  max: number | null = null,
): Promise<void> => {
  const archiving = kpi.archivedAt === undefined && updated.archivedAt !== undefined;
  const restoring = kpi.archivedAt !== undefined && updated.archivedAt === undefined;
  const counted: Reference[] =
    archiving || restoring
      ? [
          {
            item: {
              Update: {
                TableName: db.tableName,
                Key: keys.kpiCount(kpi.tenantId),
                UpdateExpression: 'SET #type = :type ADD #count :by',
                ...(restoring && max !== null
                  ? { ConditionExpression: 'attribute_not_exists(#count) OR #count < :max' }
                  : {}),
                ExpressionAttributeNames: { '#count': 'count', '#type': 'type' },
                ExpressionAttributeValues: {
                  ':by': restoring ? 1 : -1,
                  ':type': kpiCount.type,
                  ...(restoring && max !== null ? { ':max': max } : {}),
                },
              },
            },
            failed: () => new KpiLimitReached(`The tenant has ${max} live KPIs.`),
          },
        ]
      : [];
  const references = [...counted, ...referencesOf(db.tableName, kpi, updated)];
  const update = entityUpdate(kpis, updated, {
    set: { updatedAt: at },
    remove: updated.cadence === 'none' ? ['quietNotifiedFor'] : [],
  });
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: db.tableName,
              Key: keys.kpi(kpi.id),
              ...update,
              ConditionExpression: `#tenant = :tenant AND ${version === null ? 'attribute_not_exists(#version)' : '#version = :version'}`,
              ExpressionAttributeNames: {
                ...update.ExpressionAttributeNames,
                '#tenant': 'tenantId',
                '#version': 'updatedAt',
              },
              ExpressionAttributeValues: {
                ...update.ExpressionAttributeValues,
                ':tenant': kpi.tenantId,
                ...(version === null ? {} : { ':version': version }),
              },
            },
          },
          auditEventPut(db, event),
          ...references.map((reference) => reference.item),
        ],
      }),
    );
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.[0] === 'ConditionalCheckFailed' || reasons?.includes('TransactionConflict')) {
      throw new WriteConflict('kpi', { cause: error });
    }
    throw referenceFailure(error, references, 2) ?? error;
  }
};

/** The KPI if it belongs to the tenant; another tenant's KPI is indistinguishable from a missing one. */
export const getKpiOfTenant = async (
  { client, tableName }: Database,
  tenantId: string,
  kpiId: string,
): Promise<Kpi | undefined> => {
  const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: keys.kpi(kpiId) }));
  const kpi = Item ? toKpi(Item) : undefined;
  return kpi?.tenantId === tenantId ? kpi : undefined;
};

/** What a list of the tenant's KPIs asks for: live or archived ones, of one cycle, of one type. */
export interface KpiListFilter {
  archived?: boolean | undefined;
  cycleId?: string | undefined;
  type?: KpiType | undefined;
}

/**
 * How far one page of `?type=` reads: the type is a filter on the key range (a KPI's type is not in
 * its key), so a page reads at most this many items, and ends short of its limit with a cursor when
 * the tenant has more of other types.
 */
export const KPI_TYPE_FILTER_BOUNDS = { perCall: 250, maxCalls: 4 } as const;

/**
 * The tenant's live KPIs (or its archived ones), of one cycle or all, grouped by cycle and oldest
 * first within it (keys.ts): each a key condition; a type is a bounded filter on that range.
 */
export const listKpis = (
  db: Database,
  tenantId: string,
  page: PageRequest,
  { type, cycleId, archived = false }: KpiListFilter = {},
): Promise<Page<Kpi>> =>
  queryPrefix(
    db,
    keys.kpisOfTenant(tenantId, archived ? 'ARCHIVED' : 'LIVE', cycleId),
    page,
    toKpi,
    type ? { attribute: 'kpiType', value: type } : undefined,
    type ? KPI_TYPE_FILTER_BOUNDS : undefined,
  );

export interface KpiWithMeasurements {
  kpi: Kpi;
  /** Ordered by period, oldest first. */
  measurements: Page<Measurement>;
}

/**
 * A KPI and its measurements in ONE Query: they share the partition `KPI#<id>`, and the
 * KPI's sort key `KPI` sorts before every `MEASUREMENT#…`, so the first page holds the KPI item and
 * then the oldest `limit` measurements in period order. A later page (`cursor`) no longer reaches the
 * KPI item, so it is read by a GetItem in parallel (still one round trip). Another tenant's KPI is
 * undefined, exactly like a missing one; its measurements are read but never returned.
 */
export const getKpiWithMeasurements = async (
  db: Database,
  tenantId: string,
  kpiId: string,
  page: PageRequest,
  order: 'oldest' | 'newest' = 'oldest',
): Promise<KpiWithMeasurements | undefined> => {
  const partition = keys.kpiPartition(kpiId);
  const kpiSk = keys.kpi(kpiId).sk;
  const isKpi = (item: Record<string, unknown>) => item.sk === kpiSk;
  // Newest first, the KPI item (`KPI` sorts first) would come last: the Query keeps to the measurements.
  const newest = order === 'newest';
  const { skPrefix } = keys.measurementsOfKpi(kpiId);
  const [kpiItem, result] = await Promise.all([
    page.cursor || newest
      ? db.client
          .send(new GetCommand({ TableName: db.tableName, Key: keys.kpi(kpiId) }))
          .then(({ Item }) => Item)
      : undefined,
    queryPage(
      db,
      newest
        ? {
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': partition.pk, ':prefix': skPrefix },
            ScanIndexForward: false,
          }
        : { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partition.pk } },
      partition,
      // The first page in period order also holds the KPI item: one more than the measurements asked for.
      page.cursor || newest ? page : { limit: page.limit + 1 },
      (item) => item,
    ),
  ]);
  const found = kpiItem ?? result.items.find(isKpi);
  const kpi = found ? toKpi(found) : undefined;
  if (kpi?.tenantId !== tenantId) return undefined;
  const measurements = result.items.filter((item) => !isKpi(item)).map(toMeasurement);
  return {
    kpi,
    measurements: result.nextCursor
      ? { items: measurements, nextCursor: result.nextCursor }
      : { items: measurements },
  };
};

/**
 * Stores a KPI's period only while it has none stored (a KPI written before KPIs had periods): true
 * when written, false when the KPI had one, which stays.
 */
export const storeKpiPeriodIfAbsent = async (
  { client, tableName }: Database,
  kpiId: string,
  period: KpiPeriod,
): Promise<boolean> =>
  writtenUnlessConditionFails(
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.kpi(kpiId),
        UpdateExpression: 'SET #period = :period',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#period)',
        ExpressionAttributeNames: { '#period': 'period' },
        ExpressionAttributeValues: { ':period': period },
      }),
    ),
  );

/** Every KPI of the tenant, live and archived, in any index format: what the operator's migrations read. */
export const listEveryKpi = (db: Database, tenantId: string, page: PageRequest): Promise<Page<Kpi>> =>
  queryPrefix(db, keys.everyKpiOfTenant(tenantId), page, toKpi);

/**
 * Moves a KPI's entry in its tenant's index to where its state and cycle put it (keys.ts), unless it is
 * there already: true when moved. Conditioned on the entry it had, so a change made meanwhile (which
 * writes the entry itself) wins.
 */
export const moveKpiIndexEntry = async ({ client, tableName }: Database, kpi: Kpi): Promise<boolean> => {
  const { gsi1sk } = keys.kpiIndex(kpi.tenantId, kpi.id, kpi.cycleId, kpi.archivedAt);
  return writtenUnlessConditionFails(
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.kpi(kpi.id),
        UpdateExpression: 'SET #gsi1sk = :entry',
        ConditionExpression: 'attribute_exists(pk) AND #gsi1sk <> :entry',
        ExpressionAttributeNames: { '#gsi1sk': 'gsi1sk' },
        ExpressionAttributeValues: { ':entry': gsi1sk },
      }),
    ),
  );
};

/** Sets the tenant's count of live KPIs: what the migration found, for KPIs made before they were counted. */
export const setKpiCount = async ({ client, tableName }: Database, tenantId: string, count: number) => {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.kpiCount(tenantId),
      UpdateExpression: 'SET #type = :type, #count = :count',
      ExpressionAttributeNames: { '#type': 'type', '#count': 'count' },
      ExpressionAttributeValues: { ':type': kpiCount.type, ':count': count },
    }),
  );
};
