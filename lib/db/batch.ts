import { AppError } from '../errors';
import { settleAll } from '../promises';
import type { Database } from './client';
import {
  BatchGetCommand,
  BatchWriteCommand,
  type MarshalledItem,
  marshallItem,
  type WriteRequest,
} from './dynamo';
import type { ItemKey } from './keys';

/** DynamoDB's per-call maximums (BatchGetItem 100 keys, BatchWriteItem 25 requests). */
const GET_CHUNK = 100;
const WRITE_CHUNK = 25;
const MAX_ATTEMPTS = 6;

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

const backoff = (attempt: number) =>
  // Stryker disable next-line ArithmeticOperator: a backoff constant; only the wait between tries changes
  new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * 2 ** attempt));

const unprocessedError = () =>
  new AppError('SERVICE_UNAVAILABLE', 'The database is busy; retry the request.', {
    headers: { 'Retry-After': '1' },
  });

/**
 * Reads any number of keys, strongly consistent, all chunks in parallel (one sequential round trip),
 * retrying keys DynamoDB returns as unprocessed under throttling.
 */
export const batchGet = async ({ client, tableName }: Database, keys: ItemKey[]) => {
  const read = async (chunk: ItemKey[]) => {
    const found: Record<string, unknown>[] = [];
    let pending: Record<string, unknown>[] = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw unprocessedError();
      // Stryker disable next-line ConditionalExpression: a wait before a retry; only timing changes
      if (attempt > 0) await backoff(attempt);
      const result = await client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      found.push(...(result.Responses?.[tableName] ?? []));
      pending = result.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
    return found;
  };
  return (await Promise.all(chunks(keys, GET_CHUNK).map(read))).flat();
};

/**
 * Puts items with BatchWriteItem (1 write unit per item under 1 KB; transactions would cost 2), all
 * chunks in parallel, retrying unprocessed items. Not atomic: callers make writes idempotent, so a
 * retry of a partly written request converges. Returns the write units consumed.
 *
 * Every item is converted to its stored form before the first chunk is sent (issue 9): a value the
 * store cannot hold fails here, while nothing is written, never between two chunks of one request.
 */
export const batchPut = async ({ client, tableName }: Database, items: Record<string, unknown>[]) => {
  const stored = items.map(marshallItem);
  const write = async (chunk: MarshalledItem[]) => {
    let units = 0;
    let pending: WriteRequest[] = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw unprocessedError();
      // Stryker disable next-line ConditionalExpression: a wait before a retry; only timing changes
      if (attempt > 0) await backoff(attempt);
      const result = await client.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: pending }, ReturnConsumedCapacity: 'TOTAL' }),
      );
      units += result.ConsumedCapacity?.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0) ?? 0;
      // Stryker disable next-line OptionalChaining: DynamoDB always answers UnprocessedItems ({} when none)
      pending = result.UnprocessedItems?.[tableName] ?? [];
    }
    return units;
  };
  const units = await settleAll(chunks(stored, WRITE_CHUNK).map(write));
  return units.reduce((sum, n) => sum + n, 0);
};
