import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';

/**
 * What webhook delivery needs of a queue: send a message (after a delay), and, for a message being
 * processed, have it come back after a delay: the next attempt of a delivery. On AWS it is SQS (the
 * worker is its Lambda event source, which deletes what was processed and leaves the rest); on the
 * local stage it is a queue kept in the table (./local-queue.ts) with the same behaviour.
 */
export interface Queue {
  send(body: string, delaySeconds?: number): Promise<void>;
  /** The received message (by its receipt) becomes visible again after `delaySeconds`. */
  retryLater(receipt: string, delaySeconds: number): Promise<void>;
}

/** A received message: its body, how often it has been received (1 the first time) and its receipt. */
export interface ReceivedMessage {
  body: string;
  receiveCount: number;
  receipt: string;
}

/**
 * SQS's longest visibility timeout (and ChangeMessageVisibility's), 12 hours: no single wait between
 * attempts may be longer. SQS's longest send delay is 15 minutes.
 */
export const MAX_VISIBILITY_SECONDS = 12 * 3600;
const MAX_DELAY_SECONDS = 15 * 60;

export const sqsQueue = ({ url, region }: { url: string; region: string }): Queue => {
  const client = new SQSClient({ region });
  return {
    async send(body, delaySeconds = 0) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: body,
          DelaySeconds: Math.min(delaySeconds, MAX_DELAY_SECONDS),
        }),
      );
    },
    async retryLater(receipt, delaySeconds) {
      await client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: url,
          ReceiptHandle: receipt,
          VisibilityTimeout: Math.min(delaySeconds, MAX_VISIBILITY_SECONDS),
        }),
      );
    },
  };
};
