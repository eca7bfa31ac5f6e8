import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { id, timestamp } from '../domain/values';
import type { Database } from './client';
import { defineEntity, inKey } from './entity';
import { keys } from './keys';

/** What a one-time link lets its holder do: accept an invitation, or set a new password. */
export const LINK_PURPOSES = ['invitation', 'password-reset'] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

/** How long a used or expired link is kept, so that a second use is audited as such, not as unknown. */
const KEPT_AFTER_EXPIRY_SECONDS = 30 * 86_400;

/**
 * A one-time link, keyed by the SHA-256 of its token (the token itself is never stored): the user it
 * is for, what it is for, until when, and when it was used (null while it was not). DynamoDB deletes
 * it some time after its expiry (`ttl`).
 */
const userLinkSchema = z.object({
  tokenHash: z.string(),
  tenantId: id,
  userId: id,
  purpose: z.enum(LINK_PURPOSES),
  createdAt: timestamp,
  expiresAt: timestamp,
  usedAt: z.nullable(timestamp),
  ttl: z.int(),
});

export type UserLink = z.output<typeof userLinkSchema>;

export const userLinks = /* @__PURE__ */ defineEntity(() => ({
  type: 'USERLINK',
  schema: userLinkSchema,
  key: (link) => keys.userLink(link.tokenHash),
  stored: { tokenHash: inKey('pk', keys.userLink) },
}));

export const newUserLink = (
  input: Pick<UserLink, 'tokenHash' | 'tenantId' | 'userId' | 'purpose'>,
  validSeconds: number,
  now = Date.now(),
): UserLink => ({
  ...input,
  createdAt: new Date(now).toISOString(),
  expiresAt: new Date(now + validSeconds * 1000).toISOString(),
  usedAt: null,
  ttl: Math.floor(now / 1000) + validSeconds + KEPT_AFTER_EXPIRY_SECONDS,
});

/** The write of a new link, for the transaction that records it on its user. */
export const userLinkPut = (db: Database, link: UserLink) => ({
  Put: {
    TableName: db.tableName,
    Item: userLinks.toItem(link),
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** The link of a token's hash, read strongly consistent; undefined for one never issued (or deleted). */
export const getUserLink = async (db: Database, tokenHash: string): Promise<UserLink | undefined> => {
  const { Item } = await db.client.send(
    // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
    new GetCommand({ TableName: db.tableName, Key: keys.userLink(tokenHash), ConsistentRead: true }),
  );
  return Item ? userLinks.fromItem(Item) : undefined;
};

/**
 * The use of a link, for the transaction that sets the password: only once, and only before it
 * expires (the condition decides, so two uses at once cannot both pass).
 */
export const userLinkUse = (db: Database, link: UserLink, now: string) => ({
  Update: {
    TableName: db.tableName,
    Key: keys.userLink(link.tokenHash),
    UpdateExpression: 'SET #usedAt = :now',
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#usedAt) AND #expiresAt > :now',
    ExpressionAttributeNames: { '#usedAt': 'usedAt', '#expiresAt': 'expiresAt' },
    ExpressionAttributeValues: { ':now': now },
  },
});
