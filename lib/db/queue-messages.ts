import {
  DeleteCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { Database } from './client';
import { defineEntity, inKey } from './entity';
import { writtenUnlessConditionFails } from './errors';
import { keys } from './keys';

/**
 * The items of the local queue (lib/webhooks/local-queue.ts): one per message, in its queue's
 * partition, with the time it becomes visible and how often it was received, as SQS keeps them.
 */
export const queueMessages = /* @__PURE__ */ defineEntity(() => ({
  type: 'QUEUEMESSAGE',
  schema: z.object({
    queue: z.string(),
    id: z.string(),
    body: z.string(),
    /** Epoch milliseconds from which the message may be received. */
    visibleAt: z.int(),
    receiveCount: z.int(),
  }),
  key: (message) => keys.queueMessage(message.queue, message.id),
  stored: { queue: inKey('pk', keys.queueMessage) },
  hidden: ['queue'],
}));

export type StoredMessage = ReturnType<typeof queueMessages.fromItem>;

export const putMessage = async ({ client, tableName }: Database, queue: string, message: StoredMessage) => {
  await client.send(
    new PutCommand({ TableName: tableName, Item: queueMessages.toItem({ ...message, queue }) }),
  );
};

/** Every message of a queue visible at `now`, oldest first. */
export const visibleMessages = async (
  { client, tableName }: Database,
  queue: string,
  now: number,
): Promise<StoredMessage[]> => {
  const { pk, skPrefix } = keys.queueMessages(queue);
  const found: StoredMessage[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: 'visibleAt <= :now',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix, ':now': now },
        // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    // Stryker disable next-line ArrayDeclaration: DynamoDB always answers a Query with Items
    found.push(...(result.Items ?? []).map(queueMessages.fromItem));
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return found;
};

/**
 * Receives a message: counts the receipt and hides it until `hiddenUntil`, unless another receiver
 * took it first (false).
 */
export const claimMessage = (
  { client, tableName }: Database,
  queue: string,
  message: StoredMessage,
  hiddenUntil: number,
): Promise<boolean> =>
  writtenUnlessConditionFails(
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.queueMessage(queue, message.id),
        UpdateExpression: 'SET visibleAt = :hidden, receiveCount = :next',
        ConditionExpression: 'receiveCount = :seen',
        ExpressionAttributeValues: {
          ':hidden': hiddenUntil,
          ':next': message.receiveCount + 1,
          ':seen': message.receiveCount,
        },
      }),
    ),
  );

/** Makes a received message visible again at `visibleAt` (SQS's ChangeMessageVisibility). */
export const putMessageVisibility = async (
  { client, tableName }: Database,
  queue: string,
  messageId: string,
  visibleAt: number,
) => {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.queueMessage(queue, messageId),
      UpdateExpression: 'SET visibleAt = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': visibleAt },
    }),
  );
};

export const deleteMessage = async ({ client, tableName }: Database, queue: string, messageId: string) => {
  await client.send(new DeleteCommand({ TableName: tableName, Key: keys.queueMessage(queue, messageId) }));
};

/** Moves a message to another queue (the dead-letter queue) in one transaction. */
export const moveMessage = async (
  { client, tableName }: Database,
  from: string,
  to: string,
  message: StoredMessage,
) => {
  await client.send(
    new TransactWriteCommand({
      TransactItems: [
        { Delete: { TableName: tableName, Key: keys.queueMessage(from, message.id) } },
        {
          Put: { TableName: tableName, Item: queueMessages.toItem({ ...message, queue: to }) },
        },
      ],
    }),
  );
};
