import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TenantAuditEvent } from '../domain/audit-event';
import { KPI_CADENCE_DEFAULTS, KPI_TARGET_DEFAULTS, type Kpi, type KpiType, kpiSchema } from '../domain/kpi';
import type { Measurement } from '../domain/measurement';
import { DEFAULT_KPI_PERIOD, type KpiPeriod } from '../domain/period';
import { uuidv7 } from '../ids';
import { auditEventPut } from './audit-events';
import type { Database } from './client';
import { defineEntity } from './entity';
import { cancellationReasons, WriteConflict, writtenUnlessConditionFails } from './errors';
import { keys } from './keys';
import { toMeasurement } from './measurements';
import { type Page, type PageRequest, queryPage, queryPrefix } from './pagination';
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
    ...keys.kpiIndex(kpi.tenantId, kpi.id),
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

/**
 * Creates a KPI of an existing tenant: the tenant's existence is a condition of the same transaction,
 * so no caller (the operator CLI included) can create a KPI of a tenant that does not exist.
 */
export const createKpi = async (
  { client, tableName }: Database,
  tenantId: string,
  input: {
    type: KpiType;
    name: string;
    unit?: string | undefined;
    period?: KpiPeriod | undefined;
  } & Partial<KpiSettings>,
): Promise<Kpi> => {
  const kpi: Kpi = {
    id: uuidv7(),
    tenantId,
    ...KPI_TARGET_DEFAULTS,
    ...KPI_CADENCE_DEFAULTS,
    ...input,
    period: input.period ?? DEFAULT_KPI_PERIOD,
    createdAt: new Date().toISOString(),
  };
  try {
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: kpis.toItem(kpi),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          tenantExists(tableName, tenantId),
        ],
      }),
    );
  } catch (error) {
    throw tenantMissing(error, tenantId);
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
 * Writes a KPI's target rule (direction, tolerance, qualitative) and cadence, with its audit event, in
 * one transaction, only while its settings are still at the version read: a concurrent change is a
 * WriteConflict (read again, decide again). A change of cadence or grace with a cadence other than
 * `none` makes the KPI due at once in the alert check's index (at its creation, which is before any
 * run), so that the next check looks at it under the new rule; `none` takes it out, along with any quiet spell it was notified of. `at` becomes the
 * settings' new version.
 */
export const putKpiSettings = async (
  db: Database,
  { kpi, version }: KpiForChange,
  patch: Partial<KpiSettings>,
  at: string,
  event: TenantAuditEvent,
): Promise<void> => {
  const cadence = patch.cadence ?? kpi.cadence;
  const index =
    patch.cadence === undefined && patch.graceHours === undefined
      ? {}
      : cadence === 'none'
        ? patch.cadence === undefined
          ? {}
          : undefined
        : keys.kpiQuietIndex(kpi.id, kpi.createdAt);
  const fields = Object.entries({ ...patch, ...index }).filter(([, value]) => value !== undefined);
  const removed = index === undefined ? ['gsi2pk', 'gsi2sk', 'quietNotifiedFor'] : [];
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: db.tableName,
              Key: keys.kpi(kpi.id),
              UpdateExpression:
                `SET ${[...fields.map(([name]) => `#${name} = :${name}`), '#updatedAt = :updatedAt'].join(', ')}` +
                (removed.length > 0 ? ` REMOVE ${removed.map((name) => `#${name}`).join(', ')}` : ''),
              ConditionExpression: `tenantId = :tenant AND ${version === null ? 'attribute_not_exists(#updatedAt)' : '#updatedAt = :version'}`,
              ExpressionAttributeNames: Object.fromEntries(
                [...fields.map(([name]) => name), 'updatedAt', ...removed].map((name) => [`#${name}`, name]),
              ),
              ExpressionAttributeValues: {
                ...Object.fromEntries(fields.map(([name, value]) => [`:${name}`, value])),
                ':updatedAt': at,
                ':tenant': kpi.tenantId,
                ...(version === null ? {} : { ':version': version }),
              },
            },
          },
          auditEventPut(db, event),
        ],
      }),
    );
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') {
      throw new WriteConflict('kpi', { cause: error });
    }
    throw error;
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

/** The tenant's KPIs in creation order (ids are UUIDv7), optionally of one type only. */
export const listKpis = (
  db: Database,
  tenantId: string,
  page: PageRequest,
  { type }: { type?: KpiType | undefined } = {},
): Promise<Page<Kpi>> =>
  queryPrefix(
    db,
    keys.kpisOfTenant(tenantId),
    page,
    toKpi,
    type ? { attribute: 'kpiType', value: type } : undefined,
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
): Promise<KpiWithMeasurements | undefined> => {
  const partition = keys.kpiPartition(kpiId);
  const kpiSk = keys.kpi(kpiId).sk;
  const isKpi = (item: Record<string, unknown>) => item.sk === kpiSk;
  const [kpiItem, result] = await Promise.all([
    page.cursor
      ? db.client
          .send(new GetCommand({ TableName: db.tableName, Key: keys.kpi(kpiId) }))
          .then(({ Item }) => Item)
      : undefined,
    queryPage(
      db,
      { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partition.pk } },
      partition,
      // The first page also holds the KPI item: one more than the measurements asked for.
      page.cursor ? page : { limit: page.limit + 1 },
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
