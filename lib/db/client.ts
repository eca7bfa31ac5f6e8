import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** What every repository function receives: the client and the one table of the service. */
export interface Database {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

export interface DatabaseOptions {
  tableName: string;
  region: string;
  endpoint?: string | undefined;
}

export const createDatabase = ({ tableName, region, endpoint }: DatabaseOptions): Database => {
  const base = new DynamoDBClient({
    region,
    ...(endpoint
      ? // DynamoDB Local accepts any alphanumeric credentials; never send real ones to it.
        { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    maxAttempts: 3,
  });
  const client = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { client, tableName };
};
