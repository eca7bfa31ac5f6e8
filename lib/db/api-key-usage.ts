import { batchGet } from './batch';
import type { Database } from './client';
import { isConditionalCheckFailed } from './conditions';
import { GetCommand, UpdateCommand } from './dynamo';
import { type ItemKey, keys } from './keys';

/**
 * How an API key is used: its push rate-limit counters and `lastUsedAt` (spec 5.2.5), in one small item
 * next to the key item (`APIKEY#<sha256>` / `USAGE`). It is the only item the push path writes besides
 * the measurements, and it is in no index, so each write costs exactly one write unit (issue 10).
 *
 * Counters: one attribute per fixed window, named after the window's start (`w<epochSeconds>`). `ADD`
 * is atomic, so every concurrent request gets its own ordinal and admission (`count <= limit`) is exact
 * across all Lambda containers. The same update removes the previous window's attribute, and a
 * successful push removes any older one it saw, so the item keeps a handful of numbers however long the
 * key lives, and no item is created per window (nothing to expire).
 */
const windowAttribute = (windowStart: number) => `w${windowStart}`;
const WINDOW_ATTRIBUTE = /^w\d+$/;

export interface RequestCount {
  /** This request's ordinal in its window. */
  count: number;
  /** Counter attributes of earlier windows still on the item; the next successful write removes them. */
  staleWindows: string[];
}

/**
 * Counts one request of an authenticated key in the window starting at `windowStart` (epoch seconds).
 * Call it only for a key known to exist: the update creates the usage item on a key's first request.
 */
export const countRequest = async (
  { client, tableName }: Database,
  keyHash: string,
  { windowStart, windowSeconds }: { windowStart: number; windowSeconds: number },
): Promise<RequestCount> => {
  const current = windowAttribute(windowStart);
  const { Attributes = {} } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.apiKeyUsage(keyHash),
      UpdateExpression: 'ADD #current :one REMOVE #previous',
      ExpressionAttributeNames: {
        '#current': current,
        '#previous': windowAttribute(windowStart - windowSeconds),
      },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return {
    count: Number(Attributes[current] ?? 1),
    staleWindows: Object.keys(Attributes).filter((name) => WINDOW_ATTRIBUTE.test(name) && name !== current),
  };
};

/**
 * Spec 5.2.5: `lastUsedAt` after each successful request; it never moves backwards, so of two concurrent
 * pushes the later timestamp stays. Also removes the stale counters `countRequest` reported.
 */
export const recordUse = async (
  { client, tableName }: Database,
  keyHash: string,
  at: string,
  staleWindows: readonly string[],
): Promise<void> => {
  const remove = staleWindows.map((_, i) => `#stale${i}`);
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.apiKeyUsage(keyHash),
        UpdateExpression: `SET #lastUsedAt = :at${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ConditionExpression: 'attribute_not_exists(#lastUsedAt) OR #lastUsedAt < :at',
        ExpressionAttributeNames: {
          '#lastUsedAt': 'lastUsedAt',
          ...Object.fromEntries(staleWindows.map((name, i) => [`#stale${i}`, name])),
        },
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  } catch (error) {
    // A later push of the same key already recorded a later time: that is the value to keep.
    if (!isConditionalCheckFailed(error)) throw error;
  }
};

/** `lastUsedAt` of each of the given key items (by their table key), in one batch read. */
export const lastUsedOf = async (db: Database, keyItems: ItemKey[]): Promise<Map<string, string>> => {
  const usage = await batchGet(
    db,
    keyItems.map((item) => keys.apiKeyUsageOf(item)),
  );
  return new Map(
    usage.flatMap((item) =>
      typeof item.lastUsedAt === 'string' ? [[item.pk as string, item.lastUsedAt] as const] : [],
    ),
  );
};

/** The requests counted so far in the window starting at `windowStart`, without counting one. */
export const requestsInWindow = async (
  { client, tableName }: Database,
  keyHash: string,
  windowStart: number,
): Promise<number> => {
  const { Item } = await client.send(
    // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
    new GetCommand({ TableName: tableName, Key: keys.apiKeyUsage(keyHash), ConsistentRead: true }),
  );
  return Number(Item?.[windowAttribute(windowStart)] ?? 0);
};
