import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Database } from './client';
import { keys } from './keys';

/**
 * One eventually consistent GetItem of an item that is never written: it proves the table answers to
 * this function's credentials and costs 0.5 read units (on demand), the cheapest read there is.
 */
export const probeTable = async ({ client, tableName }: Database): Promise<void> => {
  await client.send(new GetCommand({ TableName: tableName, Key: keys.healthProbe() }));
};
