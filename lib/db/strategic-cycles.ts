import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { type StrategicCycle, strategicCycleSchema } from '../domain/strategic-cycle';
import { id } from '../domain/values';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import type { Database } from './client';
import { defineEntity } from './entity';
import { keys } from './keys';
import { type Page, type PageRequest, queryPrefix } from './pagination';
import { tenantExists, tenantMissing } from './tenants';

export type { StrategicCycle };

/** A cycle item, in its tenant's partition; it names its tenant, which reads leave out. */
export const strategicCycles = /* @__PURE__ */ defineEntity(() => ({
  type: 'CYCLE',
  schema: z.extend(strategicCycleSchema, { tenantId: id }),
  key: (cycle) => keys.strategicCycle(cycle.tenantId, cycle.id),
  hidden: ['tenantId'],
}));

/**
 * Creates a cycle of an existing tenant (a condition of the same transaction) whose dates are in
 * order, whoever calls it (the operator CLI included). Dates are
 * calendar dates, `YYYY-MM-DD`; a cycle may start and end on the same day.
 */
export const createStrategicCycle = async (
  { client, tableName }: Database,
  tenantId: string,
  input: { name: string; startDate: string; endDate: string },
): Promise<StrategicCycle> => {
  if (input.startDate > input.endDate) {
    throw new AppError('VALIDATION_FAILED', 'The cycle ends before it starts.', {
      errors: [{ path: 'endDate', message: `must be on or after the start date ${input.startDate}` }],
    });
  }
  const cycle: StrategicCycle = { id: uuidv7(), ...input, createdAt: new Date().toISOString() };
  try {
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: strategicCycles.toItem({ ...cycle, tenantId }),
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
  return cycle;
};

/** Oldest first: ids are UUIDv7, so sort-key order is creation order. */
export const listStrategicCycles = (
  db: Database,
  tenantId: string,
  page: PageRequest,
): Promise<Page<StrategicCycle>> =>
  queryPrefix(db, keys.strategicCyclesOfTenant(tenantId), page, strategicCycles.fromItem);
