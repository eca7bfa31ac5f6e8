import {
  CreateTableCommand,
  type CreateTableCommandInput,
  ListTablesCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import tableDefinition from '../../infra/table.json';
import type { Database } from './client';

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
