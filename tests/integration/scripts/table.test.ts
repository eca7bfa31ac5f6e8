import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  type UpdateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { type Call, recordCalls } from '../../../bench/capacity';
import tableDefinition from '../../../infra/table.json';
import { createDatabase } from '../../../lib/db/client';
import { addMissingIndexes, waitForDynamoDb } from '../../../scripts/local/table';
import { db } from '../../support/fixtures';

describe('waiting for DynamoDB (npm start, the test setup)', () => {
  it('resolves once the endpoint answers', async () => {
    await expect(waitForDynamoDb(db, 60_000)).resolves.toBeUndefined();
  });

  it('gives up after its timeout with the last failure as the cause, trying again until then', async () => {
    // Nothing listens on port 1: every attempt is refused at once.
    const nowhere = createDatabase({
      tableName: 'none',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:1',
    });
    const calls: Call[] = [];
    recordCalls(nowhere.client, calls);
    try {
      const error = await waitForDynamoDb(nowhere, 1500).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toBe('DynamoDB did not answer in time');
      expect(error?.cause).toMatchObject({ code: 'ECONNREFUSED' });
      // A call (the SDK's own retries included) every 200 ms or so within 1.5 s: several, not one
      // and not hundreds.
      expect(calls.length).toBeGreaterThanOrEqual(2);
      expect(calls.length).toBeLessThanOrEqual(8);
    } finally {
      nowhere.client.destroy();
    }
  });
});

describe('a local table made by an earlier version (npm start keeps its data)', () => {
  it('gets each index of infra/table.json it lacks, active, with only the attributes that index needs', async () => {
    const old = { client: db.client, tableName: `old-${randomUUID()}` };
    // The table as a version without secondary indexes made it.
    await db.client.send(
      new CreateTableCommand({
        TableName: old.tableName,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: tableDefinition.KeySchema as never,
        AttributeDefinitions: tableDefinition.AttributeDefinitions.filter(({ AttributeName }) =>
          ['pk', 'sk'].includes(AttributeName),
        ) as never,
      }),
    );
    try {
      const calls: Call[] = [];
      const probe = createDatabase({
        tableName: old.tableName,
        region: 'eu-central-1',
        endpoint: process.env.DYNAMODB_ENDPOINT,
      });
      recordCalls(probe.client, calls);
      expect(await addMissingIndexes(probe)).toEqual(['gsi1', 'gsi2']);
      const updates = calls.filter(({ command }) => command === 'UpdateTableCommand');
      expect(
        updates.map(({ input }) =>
          (input as unknown as UpdateTableCommandInput).AttributeDefinitions?.map((a) => a.AttributeName),
        ),
      ).toEqual([
        ['gsi1pk', 'gsi1sk'],
        ['gsi2pk', 'gsi2sk'],
      ]);
      const { Table } = await db.client.send(new DescribeTableCommand({ TableName: old.tableName }));
      const indexes = Table?.GlobalSecondaryIndexes ?? [];
      expect(Table?.TableStatus).toBe('ACTIVE');
      expect(
        indexes.map(({ IndexName, KeySchema, IndexStatus }) => ({ IndexName, KeySchema, IndexStatus })),
      ).toEqual(
        tableDefinition.GlobalSecondaryIndexes.map(({ IndexName, KeySchema }) => ({
          IndexName,
          KeySchema,
          IndexStatus: 'ACTIVE',
        })),
      );
      // Run again, it finds nothing missing and changes nothing.
      calls.splice(0);
      expect(await addMissingIndexes(probe)).toEqual([]);
      expect(calls.map(({ command }) => command)).toEqual(['DescribeTableCommand']);
      probe.client.destroy();
    } finally {
      await db.client.send(new DeleteTableCommand({ TableName: old.tableName }));
    }
  });
});
