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
import { countChange, type TenantCount, type TransactItem, writeCounted } from './tenant-counts';
import { toTenant } from './tenants';
import { type UserLink, userLinkPut } from './user-links';

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

/** The users of a tenant that are not deactivated (invited or active), held to the plan's maximum. */
export const USER_COUNT: TenantCount = {
  type: 'USERCOUNT',
  key: keys.userCount,
  subject: 'user count',
};

/** A user not yet written: invited (no password) until one is set. */
const newUser = (input: {
  tenantId: string;
  email: string;
  role: Role;
  name?: string | null | undefined;
  invitedBy: User['invitedBy'];
}): User => {
  const now = new Date().toISOString();
  return {
    id: uuidv7(),
    tenantId: input.tenantId,
    email: normalizeEmail(input.email),
    name: input.name ?? null,
    role: input.role,
    disabled: false,
    passwordHash: null,
    linkHash: null,
    invitedBy: input.invitedBy,
    lastSignInAt: null,
    tokenVersion: 0,
    createdAt: now,
    updatedAt: now,
  };
};

/** Why an invitation was not written: the tenant has as many users as its plan allows. */
export class UserLimitReached extends Error {
  override name = 'UserLimitReached';
}

/** Why an invitation was not written: the e-mail is a user's already, of this tenant or another. */
export class EmailTaken extends Error {
  override name = 'EmailTaken';
  constructor(readonly ofTenant: string | undefined) {
    super('The e-mail address is taken.');
  }
}

/**
 * Writes an invited user, the claim of their e-mail, their one-time link and the audit event, and
 * counts the user, in one transaction: at most `max` users per tenant (UserLimitReached), an e-mail
 * once over all tenants (EmailTaken, naming the tenant that has it when it is `tenantId`'s).
 */
export const inviteUser = async (
  db: Database,
  input: {
    tenantId: string;
    email: string;
    role: Role;
    name?: string | null | undefined;
    invitedBy: NonNullable<User['invitedBy']>;
  },
  link: (user: User) => UserLink,
  max: number,
  event: (user: User) => TenantAuditEvent,
): Promise<{ user: User; link: UserLink }> => {
  const user = newUser(input);
  const made = link(user);
  user.linkHash = made.tokenHash;
  try {
    await writeCounted(
      db,
      USER_COUNT,
      user.tenantId,
      max,
      [
        {
          Put: {
            TableName: db.tableName,
            Item: emailOwners.toItem({ email: user.email, tenantId: user.tenantId, userId: user.id }),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: db.tableName,
            Item: users.toItem(user),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        userLinkPut(db, made),
      ],
      event(user),
      (cause) => new UserLimitReached(`The plan allows ${max} users.`, { cause }),
    );
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.[1] === 'ConditionalCheckFailed') {
      // Whose it is: read only after the refusal, so an invitation costs no read of the claim.
      const { Item } = await db.client.send(
        new GetCommand({ TableName: db.tableName, Key: keys.email(user.email), ConsistentRead: true }),
      );
      const owner = Item ? emailOwners.fromItem(Item) : undefined;
      throw new EmailTaken(owner?.tenantId === user.tenantId ? user.tenantId : undefined);
    }
    throw error;
  }
  return { user, link: made };
};

/** The time of a sign-in, on the user (the people list shows it). */
export const recordSignIn = async (db: Database, user: User, at = new Date().toISOString()) => {
  await db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: keys.user(user.tenantId, user.id),
      UpdateExpression: 'SET #lastSignInAt = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#lastSignInAt': 'lastSignInAt' },
      ExpressionAttributeValues: { ':at': at },
    }),
  );
};

/**
 * Creates the user and claims its e-mail in one transaction: an e-mail identifies one user across all
 * tenants, because login knows nothing but the e-mail.
 */
export const createUser = async (
  { client, tableName }: Database,
  input: { tenantId: string; email: string; role: Role; passwordHash: string; name?: string | null },
): Promise<User> => {
  const user = newUser({ ...input, invitedBy: null });
  user.passwordHash = input.passwordHash;
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
          // The operator is held to no plan maximum, but the user takes a place like any other.
          countChange({ client, tableName }, USER_COUNT, user.tenantId, 1, null),
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

export type UserPatch = Partial<
  Pick<User, 'role' | 'disabled' | 'passwordHash' | 'linkHash' | 'lastSignInAt'>
>;

export interface UserChange {
  patch: UserPatch;
  /** Raise the token version: every token issued to the user before stops working. */
  endSessions: boolean;
  /** One user more (a reactivation: held to `max`) or fewer (a deactivation) on the tenant's count. */
  count?: { delta: 1 | -1; max: number | null };
  /**
   * An active ADMIN of the tenant other than this user, who must still be one when the change is
   * written: what keeps a tenant from losing its last ADMIN, also when two change at once.
   */
  keeps?: User;
  /** More writes of the same transaction (a new one-time link). */
  with?: TransactItem[];
  events: TenantAuditEvent[];
}

/** Why a change was not written: another ADMIN it relied on is no longer one. */
export class AdminGone extends Error {
  override name = 'AdminGone';
}

/**
 * A change of a user with its audit events, in one transaction, only while the user is still as read
 * (`current`, by its `updatedAt`): a user changed or deleted meanwhile, or a transaction that met
 * another, is a `WriteConflict` (the caller reads again and decides again). Refusals by the count are
 * UserLimitReached; a kept ADMIN that is none any more is AdminGone. Answers the user as written.
 */
export const writeUserChange = async (db: Database, current: User, change: UserChange): Promise<User> => {
  const updatedAt = new Date().toISOString();
  const set = setFields(change.patch, updatedAt);
  const items: TransactItem[] = [
    {
      Update: {
        TableName: db.tableName,
        Key: keys.user(current.tenantId, current.id),
        UpdateExpression: `${set.UpdateExpression}${change.endSessions ? ' ADD #tokenVersion :one' : ''}`,
        ConditionExpression: '#seenUpdatedAt = :seenUpdatedAt',
        ExpressionAttributeNames: {
          ...set.ExpressionAttributeNames,
          ...(change.endSessions ? { '#tokenVersion': 'tokenVersion' } : {}),
          '#seenUpdatedAt': 'updatedAt',
        },
        ExpressionAttributeValues: {
          ...set.ExpressionAttributeValues,
          ...(change.endSessions ? { ':one': 1 } : {}),
          ':seenUpdatedAt': current.updatedAt,
        },
      },
    },
    ...(change.keeps
      ? [
          {
            ConditionCheck: {
              TableName: db.tableName,
              Key: keys.user(change.keeps.tenantId, change.keeps.id),
              ConditionExpression: '#role = :admin AND #disabled = :false',
              ExpressionAttributeNames: { '#role': 'role', '#disabled': 'disabled' },
              ExpressionAttributeValues: { ':admin': 'ADMIN', ':false': false },
            },
          },
        ]
      : []),
    ...(change.count
      ? [countChange(db, USER_COUNT, current.tenantId, change.count.delta, change.count.max)]
      : []),
    ...(change.with ?? []),
    ...change.events.map((event) => auditEventPut(db, event)),
  ];
  try {
    await db.client.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    const keepsAt = change.keeps ? 1 : -1;
    const countAt = change.count ? (change.keeps ? 2 : 1) : -1;
    if (reasons[0] === 'ConditionalCheckFailed' || reasons.includes('TransactionConflict')) {
      throw new WriteConflict('user', { cause: error });
    }
    if (reasons[keepsAt] === 'ConditionalCheckFailed') throw new AdminGone('The other ADMIN changed.');
    if (reasons[countAt] === 'ConditionalCheckFailed') {
      throw new UserLimitReached('The plan’s user maximum is reached.', { cause: error });
    }
    throw error;
  }
  const defined = Object.fromEntries(Object.entries(change.patch).filter(([, value]) => value !== undefined));
  return {
    ...current,
    ...defined,
    tokenVersion: current.tokenVersion + (change.endSessions ? 1 : 0),
    updatedAt,
  };
};

/**
 * A change of a user that ends their sessions (the token version raised), with its audit event
 * (`sessions.revoked`), in one transaction, only while the user is still as read.
 */
export const putUserChange = (
  db: Database,
  current: User,
  patch: UserPatch,
  event: TenantAuditEvent,
): Promise<User> => writeUserChange(db, current, { patch, endSessions: true, events: [event] });

/**
 * The use of a one-time link (`use`, the link's conditional update) that sets the user's password,
 * clears the link and ends the user's other sessions, with its audit event, in one transaction. False
 * when the link was used, expired or replaced meanwhile (nothing was written).
 */
export const setPasswordByLink = async (
  db: Database,
  user: User,
  input: { passwordHash: string; linkHash: string; use: TransactItem; at: string },
  event: TenantAuditEvent,
): Promise<boolean> => {
  const set = setFields(
    { passwordHash: input.passwordHash, linkHash: null, lastSignInAt: input.at },
    input.at,
  );
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          input.use,
          {
            Update: {
              TableName: db.tableName,
              Key: keys.user(user.tenantId, user.id),
              UpdateExpression: `${set.UpdateExpression} ADD #tokenVersion :one`,
              ConditionExpression: '#seenLink = :link AND #disabled = :false',
              ExpressionAttributeNames: {
                ...set.ExpressionAttributeNames,
                '#tokenVersion': 'tokenVersion',
                '#seenLink': 'linkHash',
                '#disabled': 'disabled',
              },
              ExpressionAttributeValues: {
                ...set.ExpressionAttributeValues,
                ':one': 1,
                ':link': input.linkHash,
                ':false': false,
              },
            },
          },
          auditEventPut(db, event),
        ],
      }),
    );
    return true;
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.slice(0, 2).includes('ConditionalCheckFailed')) return false;
    if (reasons?.includes('TransactionConflict')) return false;
    throw error;
  }
};

/** The tenant's users, oldest first (ids are UUIDv7). */
export const listUsers = (db: Database, tenantId: string, page: PageRequest): Promise<Page<User>> =>
  queryPrefix(db, keys.usersOfTenant(tenantId), page, toUser);
