import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { KpiType } from '../domain/kpi';
import type { Measurement } from '../domain/measurement';
import { batchPut } from './batch';
import type { Database } from './client';
import { keys } from './keys';
import { type Page, type PageRequest, queryPrefix } from './pagination';

/** A measurement item read back; a value or provenance the record does not have is null. */
export const toMeasurement = (item: Record<string, unknown>): Measurement => ({
  id: item.id as string,
  kpiId: item.kpiId as string,
  kpiType: item.kpiType as KpiType,
  actual: item.actual as number,
  target: (item.target as number | undefined) ?? null,
  forecast: (item.forecast as number | undefined) ?? null,
  periodStart: item.periodStart as string,
  periodEnd: item.periodEnd as string,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  receivedAt: (item.receivedAt as string | undefined) ?? null,
  apiKeyId: (item.apiKeyId as string | undefined) ?? null,
  apiKeyPrefix: (item.apiKeyPrefix as string | undefined) ?? null,
  integrationId: (item.integrationId as string | undefined) ?? null,
  integrationName: (item.integrationName as string | undefined) ?? null,
});

/** Ordered by period: the sort key is `MEASUREMENT#<periodStart>#<periodEnd>` with ISO dates. */
export const listMeasurements = (
  db: Database,
  kpiId: string,
  page: PageRequest,
): Promise<Page<Measurement>> => queryPrefix(db, keys.measurementsOfKpi(kpiId), page, toMeasurement);

/**
 * The `count` newest measurements of a KPI (by period), newest first: one Query that reads at most
 * `count` items however many periods the KPI has, so a list of KPIs costs the same after ten periods
 * as after ten thousand. Eventually consistent, like every list read.
 */
export const listRecentMeasurements = async (
  { client, tableName }: Database,
  kpiId: string,
  count: number,
): Promise<Measurement[]> => {
  const { pk, skPrefix } = keys.measurementsOfKpi(kpiId);
  // Stryker disable next-line ArrayDeclaration: DynamoDB always answers a Query with Items (empty when none match)
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ScanIndexForward: false,
      Limit: count,
    }),
  );
  return Items.map(toMeasurement);
};

/**
 * The newest measurement of a KPI that has a target, among its `within` newest periods (newest first,
 * a page at a time), or undefined: what a KPI's status is measured on, at a bounded cost.
 */
export const latestWithTarget = async (
  { client, tableName }: Database,
  kpiId: string,
  within: number,
): Promise<Measurement | undefined> => {
  const { pk, skPrefix } = keys.measurementsOfKpi(kpiId);
  const pageSize = 25;
  let start: Record<string, unknown> | undefined;
  for (let read = 0; read < within; read += pageSize) {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: 'attribute_exists(#target)',
        ExpressionAttributeNames: { '#target': 'target' },
        ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
        ScanIndexForward: false,
        Limit: Math.min(pageSize, within - read),
        ExclusiveStartKey: start,
      }),
    );
    const [found] = page.Items ?? [];
    if (found) return toMeasurement(found);
    start = page.LastEvaluatedKey;
    if (!start) return undefined;
  }
  return undefined;
};

/** What a push or a pull writes: the values of spec 2.5 plus where they came from. */
export interface MeasurementWrite {
  kpiId: string;
  kpiType: KpiType;
  actual: number;
  target?: number | undefined;
  forecast?: number | undefined;
  periodStart: string;
  periodEnd: string;
}

/**
 * Where a measurement came from: a push with an API key, or a run of a pull integration. The record
 * keeps the last writer only, so a write of one kind removes the other's provenance.
 */
export type MeasurementSource =
  | { type: 'apiKey'; id: string; prefix: string }
  | { type: 'integration'; id: string; name: string };

export interface WriteContext {
  tenantId: string;
  source: MeasurementSource;
  /** ISO time of the push or pull: `updatedAt` and `receivedAt`, and `createdAt` of a new record. */
  at: string;
}

export interface WrittenMeasurement {
  status: 'created' | 'updated';
  measurement: Measurement;
}

/** What a dry run answers: the record a push would store; `id` is null for one that does not exist yet. */
export interface PlannedMeasurement {
  status: 'created' | 'updated';
  measurement: Omit<Measurement, 'id'> & { id: string | null };
}

/** The stored item; `id` and `createdAt` are the existing record's when there is one. */
const measurementItem = (
  m: MeasurementWrite,
  context: WriteContext,
  identity: { id: string | null; createdAt: string },
): Record<string, unknown> => ({
  ...keys.measurement(m.kpiId, m.periodStart, m.periodEnd),
  type: 'MEASUREMENT',
  ...identity,
  tenantId: context.tenantId,
  kpiId: m.kpiId,
  kpiType: m.kpiType,
  actual: m.actual,
  target: m.target,
  forecast: m.forecast,
  periodStart: m.periodStart,
  periodEnd: m.periodEnd,
  updatedAt: context.at,
  receivedAt: context.at,
  ...(context.source.type === 'apiKey'
    ? {
        apiKeyId: context.source.id,
        apiKeyPrefix: context.source.prefix,
        integrationId: undefined,
        integrationName: undefined,
      }
    : {
        apiKeyId: undefined,
        apiKeyPrefix: undefined,
        integrationId: context.source.id,
        integrationName: context.source.name,
      }),
});

/**
 * Upserts one measurement by its identity (KPI, periodStart, periodEnd) with a single UpdateItem: the
 * values are replaced, `id` and `createdAt` are kept if the record exists (`if_not_exists`), and the
 * answer says which happened. One write unit and no read, and exact under concurrency: of two
 * simultaneous first pushes one is `created` and the other `updated`.
 */
export const upsertMeasurement = async (
  { client, tableName }: Database,
  m: MeasurementWrite,
  context: WriteContext,
  newId: string,
): Promise<WrittenMeasurement> => {
  const { pk, sk, id, createdAt, ...fields } = measurementItem(m, context, {
    id: newId,
    createdAt: context.at,
  });
  const set = Object.entries(fields).filter(([, value]) => value !== undefined);
  const remove = Object.entries(fields).filter(([, value]) => value === undefined);
  const names = [...set, ...remove].map(([name]) => name);
  const { Attributes } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { pk, sk },
      UpdateExpression:
        `SET ${[...set.map(([name]) => `#${name} = :${name}`), '#id = if_not_exists(#id, :id)', '#createdAt = if_not_exists(#createdAt, :createdAt)'].join(', ')}` +
        (remove.length > 0 ? ` REMOVE ${remove.map(([name]) => `#${name}`).join(', ')}` : ''),
      ExpressionAttributeNames: Object.fromEntries(
        [...names, 'id', 'createdAt'].map((name) => [`#${name}`, name]),
      ),
      ExpressionAttributeValues: Object.fromEntries([
        ...set.map(([name, value]) => [`:${name}`, value]),
        [':id', id],
        [':createdAt', createdAt],
      ]),
      ReturnValues: 'ALL_NEW',
    }),
  );
  const stored = Attributes ?? {};
  return { status: stored.id === newId ? 'created' : 'updated', measurement: toMeasurement(stored) };
};

/**
 * Writes several measurements whose existing records were read beforehand (`existing`, by identity):
 * whole items with BatchWriteItem, one write unit each (a transaction would cost two). Not atomic: the
 * items are whole, so sending the same request again converges to the same state.
 */
export const putMeasurements = async (
  db: Database,
  measurements: { input: MeasurementWrite; existing: Record<string, unknown> | undefined; newId: string }[],
  context: WriteContext,
): Promise<WrittenMeasurement[]> => {
  const items = plan(measurements, context);
  await batchPut(
    db,
    items.map(({ item }) => item),
  );
  return items.map(({ item, status }) => ({ status, measurement: toMeasurement(item) }));
};

const plan = (
  measurements: {
    input: MeasurementWrite;
    existing: Record<string, unknown> | undefined;
    newId: string | null;
  }[],
  context: WriteContext,
) =>
  measurements.map(({ input, existing, newId }) => ({
    item: measurementItem(input, context, {
      id: (existing?.id as string | undefined) ?? newId,
      createdAt: (existing?.createdAt as string | undefined) ?? context.at,
    }),
    status: existing ? ('updated' as const) : ('created' as const),
  }));

/**
 * What a push of these measurements would store, given their existing records: the dry run's answer
 *, built exactly as `putMeasurements` builds what it writes.
 */
export const planMeasurements = (
  measurements: { input: MeasurementWrite; existing: Record<string, unknown> | undefined }[],
  context: WriteContext,
): PlannedMeasurement[] =>
  plan(
    measurements.map((m) => ({ ...m, newId: null })),
    context,
  ).map(({ item, status }) => ({ status, measurement: toMeasurement(item) }));
