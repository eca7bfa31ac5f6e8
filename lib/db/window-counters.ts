import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import type { ItemKey } from './keys';

/**
 * A fixed-window counter on one item: one attribute per window, named after the window's start
 * (`w<epochSeconds>`), counted with `ADD` (atomic, so every concurrent request gets its own ordinal and
 * a limit holds exactly across all Lambda containers); the same update removes the attribute of the
 * window before the previous one and renews the item's `ttl`, so the item stays small and goes once it
 * is idle. The key usage's rate counters (./api-key-usage.ts) count the same way, on the day's usage
 * item, with these helpers.
 *
 * The previous window's attribute stays until a window later: a request picks its window by its own
 * clock before its `ADD` reaches the table, so under load the `ADD`s of requests that started before
 * a window's end still arrive after the next window's first. Removed at once, that window would count
 * them again from 1, and admit past its limit. A request lives less than a window (a Lambda's
 * time-out is shorter than a minute's window), so no count arrives two windows late.
 */
export interface CounterWindow {
  /** Epoch seconds, a multiple of `windowSeconds`. */
  windowStart: number;
  windowSeconds: number;
}

export const windowAttribute = (windowStart: number) => `w${windowStart}`;

/** The attribute no request counts in any more when `window` is counted: two windows back. */
export const expiredWindowAttribute = ({ windowStart, windowSeconds }: CounterWindow) =>
  windowAttribute(windowStart - 2 * windowSeconds);

const WINDOW_ATTRIBUTE = /^w(\d+)$/;

/**
 * The window attributes of an item that no request counts in any more, seen from `window`: those that
 * started before the previous window. A later window's (counted by a request whose clock is ahead)
 * and the previous one's are still live.
 */
export const expiredWindowAttributes = (
  item: Record<string, unknown>,
  { windowStart, windowSeconds }: CounterWindow,
): string[] =>
  Object.keys(item).filter((name) => {
    const match = WINDOW_ATTRIBUTE.exec(name);
    return match !== null && Number(match[1]) < windowStart - windowSeconds;
  });

/** Counts one event in the window and returns its ordinal in it (1 for the first). */
export const countInWindow = async (
  { client, tableName }: Database,
  key: ItemKey,
  window: CounterWindow,
): Promise<number> => {
  const { windowStart, windowSeconds } = window;
  const current = windowAttribute(windowStart);
  const { Attributes = {} } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key,
      UpdateExpression: 'ADD #current :one SET #type = :type, #ttl = :ttl REMOVE #expired',
      ExpressionAttributeNames: {
        '#current': current,
        '#expired': expiredWindowAttribute(window),
        '#type': 'type',
        '#ttl': 'ttl',
      },
      ExpressionAttributeValues: {
        ':one': 1,
        ':type': 'WINDOW_COUNTER',
        // A late count of the previous window renews it too: the item outlives every live window.
        ':ttl': windowStart + 3 * windowSeconds,
      },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes[current] ?? 1);
};
