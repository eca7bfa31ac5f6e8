import { type AttributeValue, BatchWriteItemCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { AppError } from '../errors';
import { settleAll } from '../promises';
import { type Database, MARSHALL_OPTIONS } from './client';
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
  const read = async (chunk: Record<string, unknown>[]) => {
    const found: Record<string, unknown>[] = [];
    let pending = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw unprocessedError();
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a wait before a retry; only timing changes
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
 * Puts items with BatchWriteItem (1 write unit per item under 1 KB; a transaction would cost 2), all
 * chunks in parallel, retrying unprocessed items. Not atomic: callers make writes idempotent, so a
 * retry of a partly written request converges.
 *
 * Every item is converted to DynamoDB's form by the SDK's own marshaller before the first chunk is
 * sent: a value the SDK refuses fails here, while nothing is written, never between two chunks of one
 * request. The converted items are then sent as they are, through the same client.
 */
export const batchPut = async ({ client, tableName }: Database, items: Record<string, unknown>[]) => {
  const stored = items.map((item) => marshall(item, MARSHALL_OPTIONS));
  const write = async (chunk: Record<string, AttributeValue>[]) => {
    let pending: WriteRequest[] = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === MAX_ATTEMPTS) throw unprocessedError();
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a wait before a retry; only timing changes
      if (attempt > 0) await backoff(attempt);
      const result = await client.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }));
      // Stryker disable next-line OptionalChaining: DynamoDB always answers UnprocessedItems ({} when none)
      pending = result.UnprocessedItems?.[tableName] ?? [];
    }
  };
  await settleAll(chunks(stored, WRITE_CHUNK).map(write));
};
