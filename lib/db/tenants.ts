import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Feature, Plan } from '../domain/plan';
import { type Tenant, tenantSchema } from '../domain/tenant';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import type { Database } from './client';
import { defineEntity } from './entity';
import { cancellationReasons, isConditionalCheckFailed } from './errors';
import { setFields } from './expressions';
import { keys } from './keys';
import { type Page, type PageRequest, queryPrefix } from './pagination';

export type { Tenant };

/** A tenant item: also in the index partition of every tenant, for the operator's `list-tenants`. */
export const tenants = /* @__PURE__ */ defineEntity(() => ({
  type: 'TENANT',
  schema: tenantSchema,
  key: (tenant) => ({ ...keys.tenant(tenant.id), ...keys.tenantIndex(tenant.id) }),
}));

export const toTenant = (item: Record<string, unknown>): Tenant => tenants.fromItem(item);

export const getTenant = async (
  { client, tableName }: Database,
  tenantId: string,
): Promise<Tenant | undefined> => {
  const { Item } = await client.send(
    // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
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
      Item: tenants.toItem(tenant),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return tenant;
};

/**
 * Changes a tenant. A plan change also deletes the tenant's API key slots item, in the same
 * transaction: the slot list is kept only under a plan with a key maximum, and the first key created
 * under the new plan rebuilds it from the tenant's keys (lib/db/api-keys.ts).
 */
export const updateTenant = async (
  db: Database,
  tenantId: string,
  patch: Partial<Pick<Tenant, 'name' | 'plan' | 'features' | 'active' | 'usageKey'>>,
): Promise<Tenant> => {
  const update = {
    TableName: db.tableName,
    Key: keys.tenant(tenantId),
    // The index attributes too: a tenant stored before tenants were indexed joins `listTenants` at its next change.
    ...setFields({ ...patch, ...keys.tenantIndex(tenantId) }),
    ConditionExpression: 'attribute_exists(pk)',
  };
  try {
    if (patch.plan === undefined) {
      const { Attributes } = await db.client.send(new UpdateCommand({ ...update, ReturnValues: 'ALL_NEW' }));
      return toTenant(Attributes ?? {});
    }
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          { Update: update },
          { Delete: { TableName: db.tableName, Key: keys.apiKeySlots(tenantId) } },
        ],
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error) || cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') {
      throw new AppError('NOT_FOUND', `Tenant ${tenantId} not found.`);
    }
    throw error;
  }
  const changed = await getTenant(db, tenantId);
  if (!changed) throw new AppError('NOT_FOUND', `Tenant ${tenantId} not found.`);
  return changed;
};

/** Every tenant, oldest first (ids are UUIDv7): the operator's view. */
export const listTenants = (db: Database, page: PageRequest): Promise<Page<Tenant>> =>
  queryPrefix(db, keys.allTenants(), page, toTenant);

/** A transaction item that holds only if the tenant exists: for items that belong to a tenant. */
export const tenantExists = (tableName: string, tenantId: string) => ({
  ConditionCheck: {
    TableName: tableName,
    Key: keys.tenant(tenantId),
    ConditionExpression: 'attribute_exists(pk)',
  },
});

/** The error to throw for a transaction that had `tenantExists` as its last item. */
export const tenantMissing = (error: unknown, tenantId: string): unknown => {
  const reasons = cancellationReasons(error);
  return reasons?.at(-1) === 'ConditionalCheckFailed'
    ? new AppError('NOT_FOUND', `Tenant ${tenantId} not found.`, { cause: error })
    : error;
};
