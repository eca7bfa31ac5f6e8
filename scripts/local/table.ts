import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import tableDefinition from '../../infra/table.json';
import type { Database } from '../../lib/db/client';

/**
 * Creates the table from `infra/table.json`, the same file serverless.yml deploys as its
 * CloudFormation resource, so local runs and tests use exactly the deployed key schema and index.
 */
export const createTable = async ({ client, tableName }: Database): Promise<void> => {
  const {
    TimeToLiveSpecification: ttl,
    PointInTimeRecoverySpecification: _pitr,
    SSESpecification: _sse,
    ...definition
  } = tableDefinition;
  await client.send(
    new CreateTableCommand({ ...(definition as CreateTableCommandInput), TableName: tableName }),
  );
  await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: ttl }));
};

/**
 * Creates the indexes of `infra/table.json` that an existing table lacks, one UpdateTable each (DynamoDB
 * creates one index per call, and takes the next only once the table is active again), and returns
 * their names once every index is active: a local database made by an earlier version keeps its data
 * when a later version adds an index. DynamoDB Local fills a new index in the background and, while it
 * does, may fail a write to the item it is copying with InternalFailure, so nothing writes before the
 * index is active. On AWS, CloudFormation does this from the same file.
 */
export const addMissingIndexes = async ({ client, tableName }: Database): Promise<string[]> => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  const definition = tableDefinition as CreateTableCommandInput;
  const missing = (definition.GlobalSecondaryIndexes ?? []).filter((index) => !present.has(index.IndexName));
  for (const index of missing) {
    const attributes = new Set(index.KeySchema?.map((key) => key.AttributeName));
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: definition.AttributeDefinitions?.filter((a) => attributes.has(a.AttributeName)),
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
    await waitUntilActive({ client, tableName });
  }
  return missing.map((index) => index.IndexName as string);
};

/** Resolves once the table and each of its indexes are active; polls every 200 ms for at most `timeoutMs`. */
const waitUntilActive = async ({ client, tableName }: Database, timeoutMs = 120_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexes = Table?.GlobalSecondaryIndexes ?? [];
    if (Table?.TableStatus === 'ACTIVE' && indexes.every((index) => index.IndexStatus === 'ACTIVE')) return;
    // Stryker disable next-line EqualityOperator: one millisecond either way at the deadline
    if (Date.now() > deadline) throw new Error(`Table ${tableName} did not become active in time`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

/**
 * Resolves once the endpoint answers. DynamoDB Local needs a few seconds after the JVM starts, and far
 * longer on a loaded machine (more than 30 s was seen with several JVMs starting at once): waiting
 * longer costs nothing when it is quick.
 */
export const waitForDynamoDb = async ({ client }: Database, timeoutMs = 120_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client.send(new ListTablesCommand({}));
      return;
    } catch (error) {
      // Stryker disable next-line EqualityOperator: one millisecond either way at the deadline
      if (Date.now() > deadline) throw new Error('DynamoDB did not answer in time', { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
};
