import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { TenantAuditEvent } from '../domain/audit-event';
import type { Tenant } from '../domain/tenant';
import type { User } from '../domain/user';
import { id, timestamp } from '../domain/values';
import { writtenWithEvent } from './audit-events';
import { batchGet } from './batch';
import type { Database } from './client';
import { defineEntity, inKey } from './entity';
import { keys } from './keys';
import { toTenant } from './tenants';
import { toUser } from './users';

/**
 * A session: the server-side record of one refresh token (its `sid` claim), from login until the token
 * expires or is revoked (logout deletes it). Item `SESSION#<sid>` / `SESSION` with the user, the
 * tenant, `createdAt` and `ttl` (epoch seconds, the refresh token's expiry). DynamoDB deletes expired
 * items only eventually (DynamoDB Local never), so every reader checks `ttl` itself.
 */
export const sessions = /* @__PURE__ */ defineEntity(() => ({
  type: 'SESSION',
  schema: z.object({
    id,
    userId: id,
    tenantId: id,
    createdAt: timestamp,
    /** Epoch seconds at which the refresh token, and so the session, expires. */
    expiresAt: z.int(),
  }),
  key: (session) => keys.session(session.id),
  stored: {
    id: inKey('pk', keys.session),
    expiresAt: { attribute: 'ttl' },
  },
}));

export type Session = ReturnType<typeof sessions.fromItem>;

export const createSession = async (
  { client, tableName }: Database,
  session: Omit<Session, 'createdAt'>,
): Promise<void> => {
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: sessions.toItem({ ...session, createdAt: new Date().toISOString() }),
      // Ids are random UUIDs: a collision would be a bug, never a reason to overwrite a session.
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
};

/**
 * Ends one session, with its audit event (`logout`), in one transaction. Ending one that has ended
 * already changes nothing and records nothing: false.
 */
export const deleteSession = async (
  db: Database,
  sessionId: string,
  event: TenantAuditEvent,
): Promise<boolean> => {
  return writtenWithEvent(
    db,
    {
      Delete: {
        TableName: db.tableName,
        Key: keys.session(sessionId),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    event,
  );
};

/** What a token of a session is checked against: each undefined when missing (the session also when expired). */
export interface SessionState {
  user: User | undefined;
  tenant: Tenant | undefined;
  session: Session | undefined;
}

/**
 * The user, their tenant and the session, in one strongly consistent BatchGetItem: the state every
 * refresh and every JWT request (through a short cache) is checked against.
 */
export const getSessionState = async (
  db: Database,
  { tenantId, userId, sessionId }: { tenantId: string; userId: string; sessionId: string },
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<SessionState> => {
  const userKey = keys.user(tenantId, userId);
  const tenantKey = keys.tenant(tenantId);
  const sessionKey = keys.session(sessionId);
  const items = await batchGet(db, [userKey, tenantKey, sessionKey]);
  const find = ({ pk, sk }: { pk: string; sk: string }) =>
    items.find((item) => item.pk === pk && item.sk === sk);
  const [userItem, tenantItem, sessionItem] = [find(userKey), find(tenantKey), find(sessionKey)];
  const session = sessionItem ? sessions.fromItem(sessionItem) : undefined;
  return {
    user: userItem ? toUser(userItem) : undefined,
    tenant: tenantItem ? toTenant(tenantItem) : undefined,
    session: session && session.expiresAt > nowSeconds ? session : undefined,
  };
};
