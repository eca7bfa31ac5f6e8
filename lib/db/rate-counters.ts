import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import { keys } from './keys';

/**
 * Counts one request of an API key in a fixed window and returns the running count. `ADD` is atomic,
 * so every concurrent request gets its own ordinal and admission (`count <= limit`) is exact, across
 * all Lambda containers. Counter items expire by TTL an hour after their window.
 */
export const countRequest = async (
  { client, tableName }: Database,
  keyHash: string,
  windowStart: number,
  windowSeconds: number,
): Promise<number> => {
  const { Attributes } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.rateCounter(keyHash, windowStart),
      UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
      ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': windowStart + windowSeconds + 3600 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.count ?? 1);
};
