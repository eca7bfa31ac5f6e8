import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { Database } from './client';
import { writtenUnlessConditionFails } from './errors';
import { allShards, GSI2, keys } from './keys';

/**
 * The entries of a sharded due index that are due at `now`: one range Query per shard (`gsi2sk` up to
 * `now`), in parallel, of at most `perShard` entries each, so a pass makes a fixed number of requests
 * whatever waits for later, and reads a bounded number; `more` says some shard had more due.
 */
export const dueEntries = async (
  { client, tableName }: Database,
  partitionOf: (shard: string) => string,
  now: number,
  perShard: number,
  projection?: string,
): Promise<{ items: Record<string, unknown>[]; more: boolean }> => {
  const pages = await Promise.all(
    allShards().map((shard) =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: GSI2,
          KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :now',
          ExpressionAttributeValues: {
            ':pk': partitionOf(shard),
            // `~` sorts after `#`: an entry due at `now` exactly is in the range.
            ':now': `${new Date(now).toISOString()}~`,
          },
          ...(projection === undefined ? {} : { ProjectionExpression: projection }),
          Limit: perShard,
        }),
      ),
    ),
  );
  return {
    // Stryker disable next-line ArrayDeclaration: DynamoDB always answers a Query with Items
    items: pages.flatMap((page) => page.Items ?? []),
    more: pages.some((page) => page.LastEvaluatedKey !== undefined),
  };
};

/** What a move reads of an entry of an unsharded partition: the item's key, id, tenant and due time. */
const unshardedEntry = z.object({
  pk: z.string(),
  sk: z.string(),
  id: z.string(),
  tenantId: z.string(),
  gsi2sk: z.string(),
});
type UnshardedEntry = z.output<typeof unshardedEntry>;

/**
 * Moves the entries of the two due indexes out of the single partitions they had before they were
 * sharded (lib/db/keys.ts): a KPI with a cadence becomes due for a look at `now` in its shard (the
 * alert check then puts it where it goes quiet), and a pull integration keeps its due time in its
 * shard. Each move is conditional on the old partition, so the migration can run again at any time,
 * at the same time as the check and the scheduler, and moves each entry once; the old partitions are
 * read a page at a time and are empty afterwards. Answers how many of each it moved.
 */
export const shardDueIndexes = async (
  db: Database,
  now: number,
): Promise<{ kpis: number; integrations: number }> => {
  const { kpis, integrations } = keys.unshardedDueIndexes();
  const due = new Date(now).toISOString();
  const moved = { kpis: 0, integrations: 0 };
  const moveAll = async (
    partition: string,
    target: (item: UnshardedEntry) => { gsi2pk: string; gsi2sk: string },
    counted: keyof typeof moved,
  ) => {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.client.send(
        new QueryCommand({
          TableName: db.tableName,
          IndexName: GSI2,
          KeyConditionExpression: 'gsi2pk = :pk',
          ExpressionAttributeValues: { ':pk': partition },
          ProjectionExpression: 'pk, sk, id, tenantId, gsi2sk',
          ExclusiveStartKey: start,
        }),
      );
      // Stryker disable next-line ArrayDeclaration: DynamoDB always answers a Query with Items
      for (const item of (page.Items ?? []).map((found) => unshardedEntry.parse(found))) {
        const { gsi2pk, gsi2sk } = target(item);
        const written = await writtenUnlessConditionFails(
          db.client.send(
            new UpdateCommand({
              TableName: db.tableName,
              Key: { pk: item.pk, sk: item.sk },
              UpdateExpression: 'SET gsi2pk = :pk, gsi2sk = :sk',
              ConditionExpression: 'gsi2pk = :old AND gsi2sk = :entry',
              ExpressionAttributeValues: {
                ':pk': gsi2pk,
                ':sk': gsi2sk,
                ':old': partition,
                ':entry': item.gsi2sk,
              },
            }),
          ),
        );
        if (written) moved[counted]++;
      }
      start = page.LastEvaluatedKey;
    } while (start);
  };
  await moveAll(kpis, (item) => keys.kpiQuietIndex(item.id, due), 'kpis');
  await moveAll(
    integrations,
    (item) => ({
      gsi2pk: keys.pullDueIndex('', item.tenantId, item.id).gsi2pk,
      gsi2sk: item.gsi2sk,
    }),
    'integrations',
  );
  return moved;
};
