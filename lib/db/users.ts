import type { Role } from '../auth/roles';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { batchGet } from './batch';
import type { Database } from './client';
import { cancellationReasons, isConditionalCheckFailed } from './conditions';
import { GetCommand, TransactWriteCommand, UpdateCommand } from './dynamo';
import { setFields } from './expressions';
import { keys } from './keys';
import { type Page, type PageRequest, queryPrefix } from './pagination';
import type { Tenant } from './tenants';
import { toTenant } from './tenants';

export interface User {
  id: string;
  tenantId: string;
  email: string;
  role: Role;
  disabled: boolean;
  /** scrypt hash with its parameters; never leaves the repository layer except for verification. */
  passwordHash: string;
  createdAt: string;
  updatedAt: string;
}

/** E-mail addresses are matched case-insensitively (RFC 5321 allows case-sensitive local parts; no provider uses them). */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const toUser = (item: Record<string, unknown>): User => ({
  id: item.id as string,
  tenantId: item.tenantId as string,
  email: item.email as string,
  role: item.role as Role,
  disabled: item.disabled === true,
  passwordHash: item.passwordHash as string,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
});

/**
 * Creates the user and claims its e-mail in one transaction: an e-mail identifies one user across all
 * tenants, because login knows nothing but the e-mail.
 */
export const createUser = async (
  { client, tableName }: Database,
  input: { tenantId: string; email: string; role: Role; passwordHash: string },
): Promise<User> => {
  const now = new Date().toISOString();
  const user: User = {
    id: uuidv7(),
    tenantId: input.tenantId,
    email: normalizeEmail(input.email),
    role: input.role,
    disabled: false,
    passwordHash: input.passwordHash,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: { ...keys.email(user.email), type: 'EMAIL', tenantId: user.tenantId, userId: user.id },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: { ...keys.user(user.tenantId, user.id), type: 'USER', ...user },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            ConditionCheck: {
              TableName: tableName,
              Key: keys.tenant(user.tenantId),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
        ],
      }),
    );
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.[0] === 'ConditionalCheckFailed') {
      throw new AppError('CONFLICT', `A user with e-mail ${user.email} already exists.`, { cause: error });
    }
    if (reasons?.[2] === 'ConditionalCheckFailed') {
      throw new AppError('NOT_FOUND', `Tenant ${user.tenantId} not found.`, { cause: error });
    }
    throw error;
  }
  return user;
};

/** The user and their tenant, read together in one round trip. */
export const getUserWithTenant = async (
  db: Database,
  tenantId: string,
  userId: string,
): Promise<{ user: User; tenant: Tenant } | undefined> => {
  const userKey = keys.user(tenantId, userId);
  const tenantKey = keys.tenant(tenantId);
  const items = await batchGet(db, [userKey, tenantKey]);
  const userItem = items.find((item) => item.sk === userKey.sk);
  const tenantItem = items.find((item) => item.sk === tenantKey.sk);
  return userItem && tenantItem ? { user: toUser(userItem), tenant: toTenant(tenantItem) } : undefined;
};

export const findUserByEmail = async (
  db: Database,
  email: string,
): Promise<{ user: User; tenant: Tenant } | undefined> => {
  const { Item } = await db.client.send(
    new GetCommand({ TableName: db.tableName, Key: keys.email(normalizeEmail(email)), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  return getUserWithTenant(db, Item.tenantId as string, Item.userId as string);
};

export const updateUser = async (
  { client, tableName }: Database,
  tenantId: string,
  userId: string,
  patch: Partial<Pick<User, 'role' | 'disabled' | 'passwordHash'>>,
): Promise<User> => {
  try {
    const { Attributes } = await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.user(tenantId, userId),
        ...setFields(patch),
        ConditionExpression: 'attribute_exists(pk)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toUser(Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new AppError('NOT_FOUND', `User ${userId} not found.`);
    throw error;
  }
};

/** The tenant's users, oldest first (ids are UUIDv7). */
export const listUsers = (db: Database, tenantId: string, page: PageRequest): Promise<Page<User>> =>
  queryPrefix(db, keys.usersOfTenant(tenantId), page, toUser);
