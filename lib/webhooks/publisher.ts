import type { Database } from '../db/client';
import { endpointsOf, putDelivery } from '../db/webhooks';
import type { DeliveryEventType, WebhookDelivery, WebhookEndpoint } from '../domain/webhook';
import { uuidv7 } from '../ids';
import type { DeliveryMessage } from './deliver';
import type { Publish } from './events';
import type { Queue } from './queue';

/** How long a delivery stays in the endpoint's log: 30 days, as Stripe keeps its event log. */
export const DELIVERY_LOG_DAYS = 30;

/** The delivered body (Standard Webhooks): the event's type, when it happened, and its data. */
export const deliveryBody = (type: DeliveryEventType, timestamp: string, data: Record<string, unknown>) =>
  JSON.stringify({ type, timestamp, data });

/** A new pending delivery of `payload` to `endpoint`, written to the log. */
export const recordDelivery = async (
  db: Database,
  endpoint: WebhookEndpoint,
  eventType: DeliveryEventType,
  payload: string,
  at: number,
): Promise<WebhookDelivery> => {
  const delivery: WebhookDelivery = {
    id: uuidv7(at),
    endpointId: endpoint.id,
    tenantId: endpoint.tenantId,
    eventType,
    status: 'pending',
    createdAt: new Date(at).toISOString(),
    payload,
    attempts: [],
    nextAttemptAt: new Date(at).toISOString(),
  };
  await putDelivery(db, delivery, Math.floor(at / 1000) + DELIVERY_LOG_DAYS * 86_400);
  return delivery;
};

/**
 * Publishing an event: one pending delivery per active endpoint of its tenant subscribed to its type,
 * each written to the endpoint's log and then sent to the queue (one message per delivery, so each
 * endpoint's retries are its own). Deleted and disabled endpoints get nothing.
 */
export const createPublisher =
  ({ db, queue, now = Date.now }: { db: Database; queue: Queue; now?: () => number }): Publish =>
  async (event) => {
    const endpoints = (await endpointsOf(db, event.tenantId)).filter(
      ({ endpoint, deletedAt }) =>
        deletedAt === null && endpoint.status === 'active' && endpoint.eventTypes.includes(event.type),
    );
    const payload = deliveryBody(event.type, event.occurredAt, event.data);
    for (const { endpoint } of endpoints) {
      const delivery = await recordDelivery(db, endpoint, event.type, payload, now());
      const message: DeliveryMessage = {
        tenantId: endpoint.tenantId,
        endpointId: endpoint.id,
        deliveryId: delivery.id,
      };
      await queue.send(JSON.stringify(message));
    }
  };
