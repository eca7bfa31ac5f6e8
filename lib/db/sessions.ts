import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Tenant } from '../domain/tenant';
import type { User } from '../domain/user';
import { batchGet } from './batch';
import type { Database } from './client';
import { keys } from './keys';
import { toTenant } from './tenants';
import { toUser } from './users';

/**
 * A session: the server-side record of one refresh token (its `sid` claim), from login until the token
 * expires or is revoked (logout deletes it). Item `SESSION#<sid>` / `SESSION` with the user, the
 * tenant, `createdAt` and `ttl` (epoch seconds, the refresh token's expiry). DynamoDB deletes expired
 * items only eventually (DynamoDB Local never), so every reader checks `ttl` itself.
 */
export interface Session {
  id: string;
  userId: string;
  tenantId: string;
  /** Epoch seconds at which the refresh token, and so the session, expires. */
  expiresAt: number;
}

export const createSession = async ({ client, tableName }: Database, session: Session): Promise<void> => {
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.session(session.id),
        type: 'SESSION',
        userId: session.userId,
        tenantId: session.tenantId,
        createdAt: new Date().toISOString(),
        ttl: session.expiresAt,
      },
      // Ids are random UUIDs: a collision would be a bug, never a reason to overwrite a session.
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
};

/** Ends one session; ending one that has ended already changes nothing. */
export const deleteSession = async ({ client, tableName }: Database, sessionId: string): Promise<void> => {
  await client.send(new DeleteCommand({ TableName: tableName, Key: keys.session(sessionId) }));
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
  const live = sessionItem && Number(sessionItem.ttl) > nowSeconds;
  return {
    user: userItem ? toUser(userItem) : undefined,
    tenant: tenantItem ? toTenant(tenantItem) : undefined,
    session: live
      ? {
          id: sessionId,
          userId: sessionItem.userId as string,
          tenantId: sessionItem.tenantId as string,
          expiresAt: Number(sessionItem.ttl),
        }
      : undefined,
  };
};
