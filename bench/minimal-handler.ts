/**
 * The cold-start yardstick: a handler that builds a DocumentClient at module scope the way the service
 * does, and answers a push with the floor's calls (GetItem of the key, then PutItem of the
 * measurement). No validation, no logging, no middleware: what any handler on the same SDK pays.
 * Without an `item` it makes only the GetItem: the cold-start floor (bench/cold.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

const endpoint = process.env.DYNAMODB_ENDPOINT;
const client = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    region: process.env.AWS_REGION,
    ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  }),
);
const TableName = process.env.TABLE_NAME;

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const { keyHash, item } = JSON.parse(event.body ?? '{}') as {
    keyHash: string;
    item?: Record<string, unknown>;
  };
  await client.send(
    new GetCommand({ TableName, Key: { pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }, ConsistentRead: true }),
  );
  if (!item) return { statusCode: 200, body: '{}' };
  await client.send(new PutCommand({ TableName, Item: item }));
  return { statusCode: 201, body: JSON.stringify(item) };
};
