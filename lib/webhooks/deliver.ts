import * as z from 'zod/mini';
import type { Seal } from '../crypto/seal';
import type { Database } from '../db/client';
import {
  putDeliveryAttempt,
  putDeliveryEnded,
  putEndpointDisabled,
  readEndpointAndDelivery,
} from '../db/webhooks';
import { auditEvent, systemContext } from '../domain/audit-event';
import type { Egress } from '../egress';
import { urlForLog } from '../egress/urls';
import { logAuditEvent, logger } from '../logger';
import { MAX_DELIVERY_ATTEMPTS, retryDelaySeconds } from './schedule';
import { secretBinding } from './secrets';
import { isSuccess, sendAttempt } from './send';

/**
 * The worker's step for one queue message: one attempt of one delivery. The message names the
 * delivery; which attempt it is comes from how often the queue has handed the message out (SQS's
 * ApproximateReceiveCount), so a worker that dies mid-attempt still moves the schedule on, and the
 * queue's maxReceiveCount (MAX_DELIVERY_ATTEMPTS) sends a message that keeps failing to the
 * dead-letter queue. Every attempt is appended to the delivery's log. After the last failed attempt the
 * endpoint is disabled, with its audit event (the worker as the actor), in one transaction.
 */
export const deliveryMessageSchema = z.object({
  tenantId: z.string(),
  endpointId: z.string(),
  deliveryId: z.string(),
});
export type DeliveryMessage = z.output<typeof deliveryMessageSchema>;

export interface DeliveryDeps {
  db: Database;
  secrets: Seal;
  /** Every attempt goes through it (lib/egress/). */
  egress: Egress;
  now?: () => number;
}

/** The delivery worker, as the actor of the endpoints it disables. */
export const WEBHOOK_DELIVERY_ACTOR = 'webhook-delivery';

/** Done: delete the message. Retry: have it come back after the delay (the next attempt). */
export type DeliveryOutcome = { kind: 'done' } | { kind: 'retry'; delaySeconds: number };

const DONE: DeliveryOutcome = { kind: 'done' };

export const deliverMessage = async (
  { db, secrets, egress, now = Date.now }: DeliveryDeps,
  body: string,
  receiveCount: number,
): Promise<DeliveryOutcome> => {
  let message: DeliveryMessage;
  try {
    message = deliveryMessageSchema.parse(JSON.parse(body));
  } catch {
    // Nothing this service sent: retrying cannot help.
    logger.error('A webhook queue message that names no delivery was dropped.');
    return DONE;
  }
  const { stored, delivery } = await readEndpointAndDelivery(
    db,
    message.tenantId,
    message.endpointId,
    message.deliveryId,
  );
  // A delivery already decided (SQS delivers at least once), or gone: nothing to do.
  if (delivery?.status !== 'pending') return DONE;
  if (!stored || stored.deletedAt !== null || stored.endpoint.status !== 'active') {
    await putDeliveryEnded(db, delivery);
    return DONE;
  }
  const { endpoint } = stored;
  const attempt = Math.min(Math.max(receiveCount, 1), MAX_DELIVERY_ATTEMPTS);
  const at = now();
  const result = await sendAttempt({
    egress,
    url: endpoint.url,
    id: delivery.id,
    payload: delivery.payload,
    secret: await secrets.open(stored.sealedSecret, secretBinding(endpoint.tenantId, endpoint.id)),
    attempt,
    at,
  });
  if (isSuccess(result)) {
    await putDeliveryAttempt(db, delivery, result, 'succeeded', null);
    return DONE;
  }
  const delaySeconds = retryDelaySeconds(attempt);
  if (delaySeconds !== undefined) {
    await putDeliveryAttempt(
      db,
      delivery,
      result,
      'pending',
      new Date(at + delaySeconds * 1000).toISOString(),
    );
    return { kind: 'retry', delaySeconds };
  }
  await putDeliveryAttempt(db, delivery, result, 'failed', null);
  const reason = `Delivery ${delivery.id} failed all ${MAX_DELIVERY_ATTEMPTS} attempts from ${delivery.createdAt} to ${result.at}.`;
  const event = auditEvent(
    systemContext(WEBHOOK_DELIVERY_ACTOR),
    {
      type: 'webhook.disabled',
      tenantId: endpoint.tenantId,
      target: { type: 'webhook', id: endpoint.id },
      details: {
        ...urlForLog(endpoint.url),
        deliveryId: delivery.id,
        attempts: MAX_DELIVERY_ATTEMPTS,
        lastHttpStatus: result.httpStatus,
        lastError: result.error,
      },
    },
    Date.parse(result.at),
  );
  if (await putEndpointDisabled(db, endpoint.tenantId, endpoint.id, result.at, reason, event)) {
    logAuditEvent(event);
  }
  return DONE;
};
