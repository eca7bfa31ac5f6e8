import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Feature, Plan } from '../domain';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import type { Database } from './client';
import { isConditionalCheckFailed } from './conditions';
import { setFields } from './expressions';
import { keys } from './keys';

export interface Tenant {
  id: string;
  name: string;
  plan: Plan;
  features: Feature[];
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export const toTenant = (item: Record<string, unknown>): Tenant => ({
  id: item.id as string,
  name: item.name as string,
  plan: item.plan as Plan,
  features: (item.features as Feature[] | undefined) ?? [],
  active: item.active === true,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
});

export const getTenant = async (
  { client, tableName }: Database,
  tenantId: string,
): Promise<Tenant | undefined> => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: keys.tenant(tenantId), ConsistentRead: true }),
  );
  return Item ? toTenant(Item) : undefined;
};

export const createTenant = async (
  { client, tableName }: Database,
  input: { name: string; plan: Plan; features: Feature[]; active: boolean; id?: string },
): Promise<Tenant> => {
  const now = new Date().toISOString();
  const tenant: Tenant = { id: input.id ?? uuidv7(), ...input, createdAt: now, updatedAt: now };
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.tenant(tenant.id), type: 'TENANT', ...tenant },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return tenant;
};

export const updateTenant = async (
  { client, tableName }: Database,
  tenantId: string,
  patch: Partial<Pick<Tenant, 'name' | 'plan' | 'features' | 'active'>>,
): Promise<Tenant> => {
  try {
    const { Attributes } = await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.tenant(tenantId),
        ...setFields(patch),
        ConditionExpression: 'attribute_exists(pk)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toTenant(Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new AppError('NOT_FOUND', `Tenant ${tenantId} not found.`);
    throw error;
  }
};
