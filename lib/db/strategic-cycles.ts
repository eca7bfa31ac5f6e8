import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { auditEvent, operatorContext, type TenantAuditEvent } from '../domain/audit-event';
import { type StrategicCycle, strategicCycleSchema } from '../domain/strategic-cycle';
import { id } from '../domain/values';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { auditEventPut } from './audit-events';
import type { Database } from './client';
import { defineEntity, entityUpdate } from './entity';
import { cancellationReasons, WriteConflict } from './errors';
import { keys } from './keys';
import { type Page, type PageRequest, queryPrefix } from './pagination';
import { tenantExists, tenantMissing } from './tenants';

export type { StrategicCycle };

/**
 * A cycle item, in its tenant's partition; it names its tenant, which reads leave out, and counts its
 * KPIs (`kpiCount`, written by each KPI that joins or leaves it: lib/db/kpis.ts), which its deletion
 * is conditioned on. A cycle stored before cycles had a status is active: it was in use.
 */
export const strategicCycles = /* @__PURE__ */ defineEntity(() => ({
  type: 'CYCLE',
  schema: z.extend(strategicCycleSchema, { tenantId: id, kpiCount: z.int() }),
  key: (cycle) => keys.strategicCycle(cycle.tenantId, cycle.id),
  hidden: ['tenantId'],
  stored: { kpiCount: { default: 0 }, status: { default: 'active' as const } },
}));

/** A cycle as stored: what the API shows of it, and how many KPIs it has. */
export type StoredCycle = StrategicCycle & { kpiCount: number };

const view = ({ kpiCount: _count, ...cycle }: StoredCycle): StrategicCycle => cycle;

/** A cycle's dates in order, whoever writes it (the operator CLI included). */
const assertDatesInOrder = ({ startDate, endDate }: Pick<StrategicCycle, 'startDate' | 'endDate'>) => {
  if (startDate > endDate) {
    throw new AppError('VALIDATION_FAILED', 'The cycle ends before it starts.', {
      errors: [{ path: 'endDate', message: `must be on or after the start date ${startDate}` }],
    });
  }
};

/**
 * Creates a cycle of an existing tenant (a condition of the same transaction) whose dates are in
 * order, with its `cycle.created` event. Dates are calendar dates, `YYYY-MM-DD`; a cycle may start and
 * end on the same day.
 */
export const createStrategicCycle = async (
  db: Database,
  tenantId: string,
  input: { name: string; startDate: string; endDate: string; description?: string | undefined },
  eventOf?: (cycle: StrategicCycle) => TenantAuditEvent,
): Promise<StrategicCycle> => {
  assertDatesInOrder(input);
  const { description, ...fields } = input;
  const cycle: StrategicCycle = {
    id: uuidv7(),
    ...fields,
    ...(description === undefined ? {} : { description }),
    status: 'planned',
    createdAt: new Date().toISOString(),
  };
  const event =
    eventOf?.(cycle) ??
    auditEvent(operatorContext('create-cycle'), {
      type: 'cycle.created',
      tenantId,
      target: { type: 'cycle', id: cycle.id },
      details: { name: cycle.name, startDate: cycle.startDate, endDate: cycle.endDate },
    });
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: db.tableName,
              Item: strategicCycles.toItem({ ...cycle, tenantId, kpiCount: 0 }),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          auditEventPut(db, event),
          tenantExists(db.tableName, tenantId),
        ],
      }),
    );
  } catch (error) {
    throw tenantMissing(error, tenantId);
  }
  return cycle;
};

/** A cycle of the tenant, strongly consistent, with its KPI count and version; undefined when missing. */
export const readCycleForChange = async (
  { client, tableName }: Database,
  tenantId: string,
  cycleId: string,
): Promise<{ cycle: StoredCycle; version: string | null } | undefined> => {
  const { Item } = await client.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.strategicCycle(tenantId, cycleId),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  return {
    cycle: strategicCycles.fromItem(Item),
    version: typeof Item.updatedAt === 'string' ? Item.updatedAt : null,
  };
};

/** A cycle of the tenant as the API shows it; undefined when missing (another tenant's is in another partition). */
export const getStrategicCycle = async (
  db: Database,
  tenantId: string,
  cycleId: string,
): Promise<StrategicCycle | undefined> => {
  const read = await readCycleForChange(db, tenantId, cycleId);
  return read ? view(read.cycle) : undefined;
};

/**
 * Writes a cycle as changed (`updated`, dates in order) with its audit event in one transaction,
 * only while it is at the version read: a concurrent change, a KPI joining or leaving included, is a
 * WriteConflict (read again, decide again). The KPI count is written as read, hence that condition.
 */
export const putCycleChange = async (
  db: Database,
  tenantId: string,
  { cycle, version }: { cycle: StoredCycle; version: string | null },
  updated: StrategicCycle,
  at: string,
  event: TenantAuditEvent,
): Promise<void> => {
  assertDatesInOrder(updated);
  const update = entityUpdate(
    strategicCycles,
    { ...updated, tenantId, kpiCount: cycle.kpiCount },
    { set: { updatedAt: at } },
  );
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: db.tableName,
              Key: keys.strategicCycle(tenantId, cycle.id),
              ...update,
              ConditionExpression: `attribute_exists(pk) AND #seenCount = :seenCount AND ${version === null ? 'attribute_not_exists(#version)' : '#version = :version'}`,
              ExpressionAttributeNames: {
                ...update.ExpressionAttributeNames,
                '#version': 'updatedAt',
                '#seenCount': 'kpiCount',
              },
              ExpressionAttributeValues: {
                ...update.ExpressionAttributeValues,
                ':seenCount': cycle.kpiCount,
                ...(version === null ? {} : { ':version': version }),
              },
            },
          },
          auditEventPut(db, event),
        ],
      }),
    );
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.[0] === 'ConditionalCheckFailed' || reasons?.includes('TransactionConflict')) {
      throw new WriteConflict('cycle', { cause: error });
    }
    throw error;
  }
};

/**
 * Deletes a cycle without KPIs with its audit event, in one transaction conditioned on it still
 * having none: a KPI that joined meanwhile is a WriteConflict (read again: then it has one).
 */
export const deleteCycleWithoutKpis = async (
  db: Database,
  tenantId: string,
  cycleId: string,
  event: TenantAuditEvent,
): Promise<void> => {
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: db.tableName,
              Key: keys.strategicCycle(tenantId, cycleId),
              ConditionExpression:
                'attribute_exists(pk) AND (attribute_not_exists(#count) OR #count = :zero)',
              ExpressionAttributeNames: { '#count': 'kpiCount' },
              ExpressionAttributeValues: { ':zero': 0 },
            },
          },
          auditEventPut(db, event),
        ],
      }),
    );
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') {
      throw new WriteConflict('cycle', { cause: error });
    }
    throw error;
  }
};

/** Oldest first: ids are UUIDv7, so sort-key order is creation order. */
export const listStrategicCycles = async (
  db: Database,
  tenantId: string,
  page: PageRequest,
): Promise<Page<StrategicCycle>> => {
  const result = await queryPrefix(
    db,
    keys.strategicCyclesOfTenant(tenantId),
    page,
    strategicCycles.fromItem,
  );
  return { ...result, items: result.items.map(view) };
};
