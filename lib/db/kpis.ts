import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { KpiType } from '../domain';
import { uuidv7 } from '../ids';
import type { Database } from './client';
import { keys } from './keys';
import { type Page, type PageRequest, queryPrefix } from './pagination';
import { tenantExists, tenantMissing } from './tenants';

export interface Kpi {
  id: string;
  tenantId: string;
  type: KpiType;
  name: string;
  unit?: string | undefined;
  createdAt: string;
}

export const toKpi = (item: Record<string, unknown>): Kpi => ({
  id: item.id as string,
  tenantId: item.tenantId as string,
  type: item.kpiType as KpiType,
  name: item.name as string,
  unit: item.unit as string | undefined,
  createdAt: item.createdAt as string,
});

/**
 * Creates a KPI of an existing tenant: the tenant's existence is a condition of the same transaction
 * (issue 13: the operator CLI accepted KPIs of tenants that do not exist).
 */
export const createKpi = async (
  { client, tableName }: Database,
  tenantId: string,
  input: { type: KpiType; name: string; unit?: string | undefined },
): Promise<Kpi> => {
  const kpi: Kpi = { id: uuidv7(), tenantId, ...input, createdAt: new Date().toISOString() };
  const { type, ...rest } = kpi;
  try {
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: {
                ...keys.kpi(kpi.id),
                ...keys.kpiIndex(tenantId, kpi.id),
                type: 'KPI',
                kpiType: type,
                ...rest,
              },
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

/** The KPI if it belongs to the tenant; another tenant's KPI is indistinguishable from a missing one. */
export const getKpiOfTenant = async (
  { client, tableName }: Database,
  tenantId: string,
  kpiId: string,
): Promise<Kpi | undefined> => {
  const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: keys.kpi(kpiId) }));
  return Item && Item.tenantId === tenantId ? toKpi(Item) : undefined;
};

export const listKpis = (db: Database, tenantId: string, page: PageRequest): Promise<Page<Kpi>> =>
  queryPrefix(db, keys.kpisOfTenant(tenantId), page, toKpi);
