import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { TenantAuditEvent } from '../domain/audit-event';
import type { Tenant } from '../domain/tenant';
import { type Role, type User, userSchema } from '../domain/user';
import { id } from '../domain/values';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { auditEventPut } from './audit-events';
import { batchGet } from './batch';
import type { Database } from './client';
import { defineEntity, inKey } from './entity';
import { cancellationReasons, isConditionalCheckFailed, WriteConflict } from './errors';
import { setFields } from './expressions';
import { keys } from './keys';
import { type Page, type PageRequest, queryPrefix } from './pagination';
import { toTenant } from './tenants';

export type { User };

/** E-mail addresses are matched case-insensitively (RFC 5321 allows case-sensitive local parts; no provider uses them). */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** A user item; one stored before token versions existed is at version 0. */
export const users = /* @__PURE__ */ defineEntity(() => ({
  type: 'USER',
  schema: userSchema,
  key: (user) => keys.user(user.tenantId, user.id),
  stored: { tokenVersion: { default: 0 } },
}));

/**
 * The claim of an e-mail address by one user (`EMAIL#<email>`), what login reads first: an e-mail
 * identifies one user across all tenants. The key holds the address.
 */
export const emailOwners = /* @__PURE__ */ defineEntity(() => ({
  type: 'EMAIL',
  schema: z.object({ email: z.string(), tenantId: id, userId: id }),
  key: (owner) => keys.email(owner.email),
  stored: { email: inKey('pk', keys.email) },
}));

export const toUser = (item: Record<string, unknown>): User => users.fromItem(item);

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
    tokenVersion: 0,
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
              Item: emailOwners.toItem({ email: user.email, tenantId: user.tenantId, userId: user.id }),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: users.toItem(user),
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

/** A user, read strongly consistent (a change just made must be seen). */
export const getUser = async (
  { client, tableName }: Database,
  tenantId: string,
  userId: string,
): Promise<User | undefined> => {
  const { Item } = await client.send(
    // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
    new GetCommand({ TableName: tableName, Key: keys.user(tenantId, userId), ConsistentRead: true }),
  );
  return Item ? toUser(Item) : undefined;
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

/**
 * A tenant and some of its users, in one strongly consistent batch read: users that do not exist (any
 * more) are left out.
 */
export const getTenantAndUsers = async (
  db: Database,
  tenantId: string,
  userIds: string[],
): Promise<{ tenant: Tenant | undefined; users: User[] }> => {
  const tenantKey = keys.tenant(tenantId);
  const items = await batchGet(db, [tenantKey, ...userIds.map((userId) => keys.user(tenantId, userId))]);
  const tenantItem = items.find((item) => item.sk === tenantKey.sk);
  return {
    tenant: tenantItem ? toTenant(tenantItem) : undefined,
    users: items.filter((item) => item !== tenantItem).map(toUser),
  };
};

/** Ids no user and no tenant has (UUIDs are never all zeros), for the read of an unknown e-mail. */
const NOBODY = '00000000-0000-0000-0000-000000000000';

/**
 * The user of an e-mail and their tenant. An unknown e-mail issues the same reads as a known one (the
 * second reads keys nobody has): login's timing tells no one whether an account exists.
 */
export const findUserByEmail = async (
  db: Database,
  email: string,
): Promise<{ user: User; tenant: Tenant } | undefined> => {
  const { Item } = await db.client.send(
    // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
    new GetCommand({ TableName: db.tableName, Key: keys.email(normalizeEmail(email)), ConsistentRead: true }),
  );
  const owner = Item ? emailOwners.fromItem(Item) : undefined;
  const found = await getUserWithTenant(db, owner?.tenantId ?? NOBODY, owner?.userId ?? NOBODY);
  return owner ? found : undefined;
};

export interface UserUpdate {
  /** Raise the token version: every token issued to the user before stops working. */
  raiseTokenVersion?: boolean;
  /** Apply the change only while the user still has this role (the caller's decision was based on it). */
  ifRole?: Role;
}

/**
 * Changes a user; 404 for an unknown one. With `ifRole`, a user whose role changed since the caller
 * read it is a `WriteConflict` (the caller reads again and decides again).
 */
export const updateUser = async (
  { client, tableName }: Database,
  tenantId: string,
  userId: string,
  patch: Partial<Pick<User, 'role' | 'disabled' | 'passwordHash'>>,
  { raiseTokenVersion = false, ifRole }: UserUpdate = {},
): Promise<User> => {
  const set = setFields(patch);
  try {
    const { Attributes } = await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.user(tenantId, userId),
        UpdateExpression: `${set.UpdateExpression}${raiseTokenVersion ? ' ADD #tokenVersion :one' : ''}`,
        ExpressionAttributeNames: {
          ...set.ExpressionAttributeNames,
          ...(raiseTokenVersion ? { '#tokenVersion': 'tokenVersion' } : {}),
          ...(ifRole ? { '#currentRole': 'role' } : {}),
        },
        ExpressionAttributeValues: {
          ...set.ExpressionAttributeValues,
          ...(raiseTokenVersion ? { ':one': 1 } : {}),
          ...(ifRole ? { ':currentRole': ifRole } : {}),
        },
        ConditionExpression: `attribute_exists(pk)${ifRole ? ' AND #currentRole = :currentRole' : ''}`,
        ReturnValues: 'ALL_NEW',
        ...(ifRole ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
      }),
    );
    return toUser(Attributes ?? {});
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    // The item as it stood (asked for with ifRole only) tells a missing user from a changed role.
    if (error instanceof ConditionalCheckFailedException && error.Item) {
      throw new WriteConflict('user', { cause: error });
    }
    throw new AppError('NOT_FOUND', `User ${userId} not found.`);
  }
};

/**
 * A change of a user that ends their sessions (the token version raised), with its audit event
 * (`sessions.revoked`), in one transaction, only while the user is still as read (`current`, by its
 * `updatedAt`): a user changed or deleted meanwhile is a `WriteConflict` (the caller reads again and
 * decides again). Answers the user as written.
 */
export const putUserChange = async (
  db: Database,
  current: User,
  patch: Partial<Pick<User, 'role' | 'disabled' | 'passwordHash'>>,
  event: TenantAuditEvent,
): Promise<User> => {
  const updatedAt = new Date().toISOString();
  const set = setFields(patch, updatedAt);
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: db.tableName,
              Key: keys.user(current.tenantId, current.id),
              UpdateExpression: `${set.UpdateExpression} ADD #tokenVersion :one`,
              ConditionExpression: '#seenUpdatedAt = :seenUpdatedAt',
              ExpressionAttributeNames: {
                ...set.ExpressionAttributeNames,
                '#tokenVersion': 'tokenVersion',
                '#seenUpdatedAt': 'updatedAt',
              },
              ExpressionAttributeValues: {
                ...set.ExpressionAttributeValues,
                ':one': 1,
                ':seenUpdatedAt': current.updatedAt,
              },
            },
          },
          auditEventPut(db, event),
        ],
      }),
    );
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') {
      throw new WriteConflict('user', { cause: error });
    }
    throw error;
  }
  const defined = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  return { ...current, ...defined, tokenVersion: current.tokenVersion + 1, updatedAt };
};

/** The tenant's users, oldest first (ids are UUIDv7). */
export const listUsers = (db: Database, tenantId: string, page: PageRequest): Promise<Page<User>> =>
  queryPrefix(db, keys.usersOfTenant(tenantId), page, toUser);
