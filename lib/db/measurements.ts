import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { type Measurement, measurementSchema, type Replaced, type Writer } from '../domain/measurement';
import { id } from '../domain/values';
import { batchPut } from './batch';
import type { Database } from './client';
import { defineEntity } from './entity';
import { keys } from './keys';
import { type Page, type PageRequest, queryPrefix } from './pagination';

/**
 * A measurement item: the record of one KPI and period, and the tenant it belongs to (written so that
 * an item says whose it is; reads leave it out). Items of 0.1 and later read as they are: a record
 * written before push kept its provenance reads it as null.
 */
export const measurements = /* @__PURE__ */ defineEntity(() => ({
  type: 'MEASUREMENT',
  schema: z.extend(measurementSchema, { tenantId: id }),
  key: (m) => keys.measurement(m.kpiId, m.periodStart, m.periodEnd),
  hidden: ['tenantId'],
  stored: {
    // Flat attributes, not a map: the single push's one UpdateItem copies the values it replaces
    // into them from the item as it was (an expression can copy an attribute, not build a map).
    replaced: { read: readReplaced, write: writeReplaced },
  },
}));

/** The attributes that hold what a write replaced, and the attribute each is copied from. */
export const REPLACED_FROM = {
  replacedActual: 'actual',
  replacedTarget: 'target',
  replacedForecast: 'forecast',
  replacedAt: 'updatedAt',
  replacedApiKeyId: 'apiKeyId',
  replacedApiKeyPrefix: 'apiKeyPrefix',
  replacedIntegrationId: 'integrationId',
  replacedIntegrationName: 'integrationName',
} as const;

/** The writer an item's provenance attributes name (its own, or, with `prefix`, the replaced one's). */
const writerOf = (item: Record<string, unknown>, prefix: '' | 'replaced' = ''): Writer => {
  const at = (name: string) => item[prefix ? `${prefix}${name[0]?.toUpperCase()}${name.slice(1)}` : name];
  const keyId = at('apiKeyId');
  const integrationId = at('integrationId');
  if (keyId != null) return { type: 'apiKey', id: keyId as string, prefix: at('apiKeyPrefix') as string };
  if (integrationId != null) {
    return { type: 'integration', id: integrationId as string, name: at('integrationName') as string };
  }
  return null;
};

/** Whether two writers are one source: the same key, or the same integration. */
export const sameWriter = (a: Writer, b: Writer): boolean =>
  a !== null && b !== null && a.type === b.type && a.id === b.id;

function readReplaced(item: Record<string, unknown>): unknown {
  // A write over nothing copies absent values as NULL: nothing was replaced.
  if (item.replacedActual == null) return undefined;
  const writtenBy = writerOf(item, 'replaced');
  return {
    actual: item.replacedActual,
    target: item.replacedTarget ?? null,
    forecast: item.replacedForecast ?? null,
    writtenAt: item.replacedAt,
    writtenBy,
    otherSource: !sameWriter(writtenBy, writerOf(item)),
  };
}

function writeReplaced(replaced: Replaced): Record<string, unknown> {
  if (!replaced) return {};
  const attributes: Record<string, unknown> = {
    replacedActual: replaced.actual,
    replacedTarget: replaced.target,
    replacedForecast: replaced.forecast,
    replacedAt: replaced.writtenAt,
    replacedApiKeyId: replaced.writtenBy?.type === 'apiKey' ? replaced.writtenBy.id : null,
    replacedApiKeyPrefix: replaced.writtenBy?.type === 'apiKey' ? replaced.writtenBy.prefix : null,
    replacedIntegrationId: replaced.writtenBy?.type === 'integration' ? replaced.writtenBy.id : null,
    replacedIntegrationName: replaced.writtenBy?.type === 'integration' ? replaced.writtenBy.name : null,
  };
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== null));
}

/** A measurement item read back, parsed; a value or provenance the record does not have is null. */
export const toMeasurement = (item: Record<string, unknown>): Measurement => measurements.fromItem(item);

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
    // Stryker disable next-line ArrayDeclaration: DynamoDB always answers a Query with Items
    const [found] = page.Items ?? [];
    if (found) return toMeasurement(found);
    start = page.LastEvaluatedKey;
    if (!start) return undefined;
  }
  return undefined;
};

/** What a push or a pull writes: the values of spec 2.5 (without a value, `target` and `forecast` are null). */
export type MeasurementWrite = Pick<
  Measurement,
  'kpiId' | 'kpiType' | 'actual' | 'periodStart' | 'periodEnd'
> & {
  target?: number | undefined;
  forecast?: number | undefined;
};

/**
 * Where a measurement came from: a push with an API key, or a run of a pull integration. The record
 * keeps the last writer only, so a write of one kind leaves the other's provenance null (absent).
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

/** The identity a write keeps: the existing record's `id` and `createdAt`, or a new record's. */
type Identity<Id> = { id: Id; createdAt: string };

/** The writer of a context, as a record names it. */
const writerOfContext = ({ source }: WriteContext): NonNullable<Writer> =>
  source.type === 'apiKey'
    ? { type: 'apiKey', id: source.id, prefix: source.prefix }
    : { type: 'integration', id: source.id, name: source.name };

/** The writer a stored record names. */
const writerOfRecord = (m: Measurement): Writer =>
  m.apiKeyId !== null
    ? { type: 'apiKey', id: m.apiKeyId, prefix: m.apiKeyPrefix as string }
    : m.integrationId !== null
      ? { type: 'integration', id: m.integrationId, name: m.integrationName as string }
      : null;

/** What a write over `existing` replaces: its values, writer and time. */
const replacedBy = (existing: Measurement | undefined, context: WriteContext): Replaced => {
  if (!existing) return null;
  const writtenBy = writerOfRecord(existing);
  return {
    actual: existing.actual,
    target: existing.target,
    forecast: existing.forecast,
    writtenAt: existing.updatedAt,
    writtenBy,
    otherSource: !sameWriter(writtenBy, writerOfContext(context)),
  };
};

/** The record a write stores. */
const recordOf = <Id>(
  m: MeasurementWrite,
  context: WriteContext,
  identity: Identity<Id>,
  existing?: Measurement,
) => ({
  ...identity,
  replaced: replacedBy(existing, context),
  kpiId: m.kpiId,
  kpiType: m.kpiType,
  actual: m.actual,
  target: m.target ?? null,
  forecast: m.forecast ?? null,
  periodStart: m.periodStart,
  periodEnd: m.periodEnd,
  updatedAt: context.at,
  receivedAt: context.at,
  apiKeyId: context.source.type === 'apiKey' ? context.source.id : null,
  apiKeyPrefix: context.source.type === 'apiKey' ? context.source.prefix : null,
  integrationId: context.source.type === 'integration' ? context.source.id : null,
  integrationName: context.source.type === 'integration' ? context.source.name : null,
});

/**
 * Upserts one measurement by its identity (KPI, periodStart, periodEnd) with a single UpdateItem: the
 * values are replaced, `id` and `createdAt` are kept if the record exists (`if_not_exists`), and the
 * answer says which happened. One write unit and no read, and exact under concurrency: of two
 * simultaneous first pushes one is `created` and the other `updated`. An attribute the new record
 * leaves absent (a `target` no longer sent) is removed, so the item is the new record's whole.
 */
export const upsertMeasurement = async (
  { client, tableName }: Database,
  m: MeasurementWrite,
  context: WriteContext,
  newId: string,
): Promise<WrittenMeasurement> => {
  const record = recordOf(m, context, { id: newId, createdAt: context.at });
  const { pk, sk, id, createdAt, ...fields } = measurements.toItem({ ...record, tenantId: context.tenantId });
  const set = Object.keys(fields);
  const remove = measurements.attributes.filter(
    (name) => !(name in fields) && name !== 'id' && name !== 'createdAt',
  );
  // What the item held before is copied into the replaced-value attributes by the same update (its
  // right-hand sides read the item as it was): provenance without a read or a write of its own. An
  // attribute the item lacked is copied as NULL, which reads as absent.
  const copies = Object.entries(REPLACED_FROM).map(([to, from]) => `#${to} = if_not_exists(#${from}, :none)`);
  const { Attributes } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { pk, sk },
      UpdateExpression:
        `SET ${[...set.map((name) => `#${name} = :${name}`), ...copies, '#id = if_not_exists(#id, :id)', '#createdAt = if_not_exists(#createdAt, :createdAt)'].join(', ')}` +
        (remove.length > 0 ? ` REMOVE ${remove.map((name) => `#${name}`).join(', ')}` : ''),
      ExpressionAttributeNames: Object.fromEntries(
        [...new Set([...set, ...remove, ...Object.entries(REPLACED_FROM).flat(), 'id', 'createdAt'])].map(
          (name) => [`#${name}`, name],
        ),
      ),
      ExpressionAttributeValues: Object.fromEntries([
        ...Object.entries(fields).map(([name, value]) => [`:${name}`, value]),
        [':id', id],
        [':createdAt', createdAt],
        [':none', null],
      ]),
      ReturnValues: 'ALL_NEW',
    }),
  );
  const stored = toMeasurement(Attributes ?? {});
  return { status: stored.id === newId ? 'created' : 'updated', measurement: stored };
};

/** A measurement to write, with its existing record (read beforehand, by identity) if there is one. */
interface Planned<Id> {
  input: MeasurementWrite;
  existing: Measurement | undefined;
  newId: Id;
}

/** The records a write of several measurements stores, and whether each replaces one. */
const plan = <Id>(planned: Planned<Id>[], context: WriteContext) =>
  planned.map(({ input, existing, newId }) => ({
    measurement: recordOf<string | Id>(
      input,
      context,
      existing ? { id: existing.id, createdAt: existing.createdAt } : { id: newId, createdAt: context.at },
      existing,
    ),
    status: existing ? ('updated' as const) : ('created' as const),
  }));

/**
 * Writes several measurements whose existing records were read beforehand (`existing`, by identity):
 * whole items with BatchWriteItem, one write unit each (a transaction would cost two). Not atomic: the
 * items are whole, so sending the same request again converges to the same state.
 */
export const putMeasurements = async (
  db: Database,
  planned: Planned<string>[],
  context: WriteContext,
): Promise<WrittenMeasurement[]> => {
  const written = plan(planned, context);
  await batchPut(
    db,
    written.map(({ measurement }) => measurements.toItem({ ...measurement, tenantId: context.tenantId })),
  );
  return written;
};

/**
 * What a push of these measurements would store, given their existing records: the dry run's answer,
 * built exactly as `putMeasurements` builds what it writes.
 */
export const planMeasurements = (
  planned: Omit<Planned<null>, 'newId'>[],
  context: WriteContext,
): PlannedMeasurement[] =>
  plan(
    planned.map((m) => ({ ...m, newId: null })),
    context,
  );
