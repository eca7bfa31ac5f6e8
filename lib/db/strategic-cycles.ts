import { uuidv7 } from '../ids';
import type { Database } from './client';
import { PutCommand } from './dynamo';
import { keys } from './keys';
import { type Page, type PageRequest, queryPrefix } from './pagination';

export interface StrategicCycle {
  id: string;
  name: string;
  startDate: string;
  endDate: string;
  createdAt: string;
}

const toStrategicCycle = (item: Record<string, unknown>): StrategicCycle => ({
  id: item.id as string,
  name: item.name as string,
  startDate: item.startDate as string,
  endDate: item.endDate as string,
  createdAt: item.createdAt as string,
});

export const createStrategicCycle = async (
  { client, tableName }: Database,
  tenantId: string,
  input: { name: string; startDate: string; endDate: string },
): Promise<StrategicCycle> => {
  const cycle: StrategicCycle = { id: uuidv7(), ...input, createdAt: new Date().toISOString() };
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.strategicCycle(tenantId, cycle.id), type: 'CYCLE', tenantId, ...cycle },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return cycle;
};

/** Oldest first: ids are UUIDv7, so sort-key order is creation order. */
export const listStrategicCycles = (
  db: Database,
  tenantId: string,
  page: PageRequest,
): Promise<Page<StrategicCycle>> =>
  queryPrefix(db, keys.strategicCyclesOfTenant(tenantId), page, toStrategicCycle);
