import type { Database } from '../db/client';
import {
  claimMessage,
  deleteMessage,
  moveMessage,
  putMessage,
  putMessageVisibility,
  visibleMessages,
} from '../db/queue-messages';
import { uuidv7 } from '../ids';
import type { Queue, ReceivedMessage } from './queue';
import { MAX_DELIVERY_ATTEMPTS } from './schedule';

/**
 * The local stage's substitute for SQS: messages are items in the table (lib/db/queue-messages.ts), so
 * a Lambda running in serverless-offline can send one and another process (`npm run alerts:run`, a
 * test) can receive it. It behaves as the SQS queue and its redrive policy do: a received message is
 * hidden for the visibility timeout, counts its receipts, comes back when it is not deleted, and moves
 * to the dead-letter queue when it is received more than `maxReceiveCount` times. Time is `now`, so
 * tests drive it with a clock of their own.
 */
export interface LocalQueue extends Queue {
  /** Receives every message visible now (each counted and hidden as SQS does). */
  receive(): Promise<ReceivedMessage[]>;
  delete(receipt: string): Promise<void>;
  /** The bodies in the dead-letter queue. */
  deadLetters(): Promise<string[]>;
}

export interface LocalQueueOptions {
  name: string;
  maxReceiveCount: number;
  visibilityTimeoutSeconds: number;
  now?: () => number;
}

/**
 * The sending side alone (send, and a received message's next visibility): what the Lambda functions
 * use, so that their bundles carry no receiving code and their roles need only PutItem and UpdateItem
 * on the queue's partition.
 */
export const localQueueSender = (
  db: Database,
  { name, now = Date.now }: Pick<LocalQueueOptions, 'name' | 'now'>,
): Queue => ({
  async send(body, delaySeconds = 0) {
    const at = now();
    await putMessage(db, name, {
      id: uuidv7(at),
      body,
      visibleAt: at + delaySeconds * 1000,
      receiveCount: 0,
    });
  },
  async retryLater(receipt, delaySeconds) {
    await putMessageVisibility(db, name, receipt, now() + delaySeconds * 1000);
  },
});

export const localQueue = (
  db: Database,
  { name, maxReceiveCount, visibilityTimeoutSeconds, now = Date.now }: LocalQueueOptions,
): LocalQueue => {
  // Stryker disable next-line StringLiteral: the dead-letter queue is only ever named through this constant
  const deadLetterQueue = `${name}-dlq`;
  return {
    ...localQueueSender(db, { name, now }),
    async receive() {
      const at = now();
      const received: ReceivedMessage[] = [];
      for (const message of await visibleMessages(db, name, at)) {
        if (message.receiveCount >= maxReceiveCount) {
          await moveMessage(db, name, deadLetterQueue, message);
          continue;
        }
        if (await claimMessage(db, name, message, at + visibilityTimeoutSeconds * 1000)) {
          received.push({ body: message.body, receiveCount: message.receiveCount + 1, receipt: message.id });
        }
      }
      return received;
    },
    async delete(receipt) {
      await deleteMessage(db, name, receipt);
    },
    async deadLetters() {
      return (await visibleMessages(db, deadLetterQueue, Number.MAX_SAFE_INTEGER)).map(({ body }) => body);
    },
  };
};

/** The name of the local stage's webhook delivery queue (its partition is `QUEUE#<name>`). */
export const WEBHOOK_QUEUE_NAME = 'webhook-deliveries';

/**
 * The local stage's webhook delivery queue, with the deployed queue's settings (serverless.yml,
 * WebhookDeliveryQueue): a received message comes back after 6 minutes unless deleted, and goes to
 * the dead-letter queue after MAX_DELIVERY_ATTEMPTS receipts.
 */
export const webhookLocalQueue = (db: Database, now?: () => number): LocalQueue =>
  localQueue(db, {
    name: WEBHOOK_QUEUE_NAME,
    maxReceiveCount: MAX_DELIVERY_ATTEMPTS,
    visibilityTimeoutSeconds: 360,
    ...(now ? { now } : {}),
  });
