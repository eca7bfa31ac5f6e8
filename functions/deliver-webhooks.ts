import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { defineDeployment } from '../lib/deployment';
import { logger } from '../lib/logger';
import { deliveryDeps, webhookQueue } from '../lib/runtime';
import { deliverMessage } from '../lib/webhooks/deliver';

/**
 * The webhook delivery worker: the Lambda event source of the delivery queue (serverless.yml,
 * WebhookDeliveryQueue), a batch at a time, each message one attempt of one delivery
 * (lib/webhooks/deliver.ts). A delivery that is to be tried again is reported as a batch item failure
 * after its message's visibility is set to the wait before the next attempt (ChangeMessageVisibility):
 * SQS hands it out again then, counting the receipt, and after the last attempt's receipt the redrive
 * policy's maxReceiveCount moves a message the worker could not process to the dead-letter queue.
 * Everything else is reported done, and the event source deletes it.
 */
class RetryLater extends Error {
  override name = 'RetryLater';
}

const processor = new BatchProcessor(EventType.SQS);

const deliverRecord = async (record: SQSRecord) => {
  const outcome = await deliverMessage(
    deliveryDeps,
    record.body,
    Number(record.attributes.ApproximateReceiveCount),
  );
  if (outcome.kind === 'retry') {
    await webhookQueue.retryLater(record.receiptHandle, outcome.delaySeconds);
    throw new RetryLater(`next attempt in ${outcome.delaySeconds} s`);
  }
};

/**
 * The endpoint and the delivery (BatchGet), the attempt (Update), disabling the endpoint (Update);
 * the next attempt's wait (ChangeMessageVisibility; on the local stage an Update of `QUEUE#*`).
 * The secret opens with the secrets key (one sealed before it existed with the JWT key).
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['TENANT#', 'WEBHOOK#'],
    PutItem: ['AUDIT#', 'QUEUE#'],
    UpdateItem: ['QUEUE#', 'TENANT#', 'WEBHOOK#'],
  },
  queues: {
    WebhookDeliveryQueue: ['ChangeMessageVisibility'],
  },
  secrets: ['jwtKey', 'secretsKey'],
  tenantUrls: {
    reservedConcurrency: 10,
  },
  trigger: {
    queue: 'WebhookDeliveryQueue',
    batchSize: 10,
    maximumBatchingWindow: 1,
  },
  timeout: 60,
});

export const handler = async (event: SQSEvent, context: Context) => {
  logger.addContext(context);
  // A batch whose deliveries all wait for a later attempt is no Lambda error (it would alarm).
  return processPartialResponse(event, deliverRecord, processor, { context, throwOnFullBatchFailure: false });
};
