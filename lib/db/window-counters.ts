import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import type { ItemKey } from './keys';

/**
 * A fixed-window counter on one item: one attribute per window, named after the window's start
 * (`w<epochSeconds>`), counted with `ADD` (atomic, so every concurrent request gets its own ordinal and
 * a limit holds exactly across all Lambda containers); the same update removes the previous window's
 * attribute and renews the item's `ttl`, so the item stays small and goes once it is idle. The key
 * usage's rate counters (./api-key-usage.ts) count the same way, on the day's usage item.
 */
export interface CounterWindow {
  /** Epoch seconds, a multiple of `windowSeconds`. */
  windowStart: number;
  windowSeconds: number;
}

const windowAttribute = (windowStart: number) => `w${windowStart}`;

/** Counts one event in the window and returns its ordinal in it (1 for the first). */
export const countInWindow = async (
  { client, tableName }: Database,
  key: ItemKey,
  { windowStart, windowSeconds }: CounterWindow,
): Promise<number> => {
  const current = windowAttribute(windowStart);
  const { Attributes = {} } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key,
      UpdateExpression: 'ADD #current :one SET #type = :type, #ttl = :ttl REMOVE #previous',
      ExpressionAttributeNames: {
        '#current': current,
        '#previous': windowAttribute(windowStart - windowSeconds),
        '#type': 'type',
        '#ttl': 'ttl',
      },
      ExpressionAttributeValues: {
        ':one': 1,
        ':type': 'WINDOW_COUNTER',
        ':ttl': windowStart + 2 * windowSeconds,
      },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes[current] ?? 1);
};
