import * as z from 'zod/mini';
import { id, timestamp } from './values';

/**
 * A tenant's webhook endpoint: where the service sends the events it subscribes to, signed with a
 * secret of its own (Standard Webhooks). The secret is not part of the entity: it is shown once, at
 * creation, and stored only sealed (lib/webhooks/secrets.ts).
 */

/** The most endpoints a tenant may have (disabled ones included; deleting one frees its place). */
export const MAX_WEBHOOK_ENDPOINTS = 10;

/**
 * Test deliveries a tenant may send per minute. Each holds a Lambda for up to its attempt's time-out
 * while the caller waits; the limit keeps one tenant from filling the function's reserved concurrency
 * (docs/operations.md, "Capacity of the functions that call tenant URLs").
 */
export const TEST_DELIVERIES_PER_MINUTE = 10;

/**
 * The events a tenant's webhooks can subscribe to. Names follow the audit events (`api_key.revoked`):
 * `<entity>.<what happened>`, as Stripe's and GitHub's do.
 */
export const WEBHOOK_EVENT_TYPES = [
  'kpi.quiet',
  'kpi.off_track',
  'kpi.off_pace',
  'api_key.expiring',
  'api_key.revoked',
  'api_key.rolled',
  'integration.disabled',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What a delivery may be about: a subscribable event, or a test sent on request. */
export const WEBHOOK_TEST_EVENT = 'webhook.test' as const;
export const DELIVERY_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT] as const;
export type DeliveryEventType = (typeof DELIVERY_EVENT_TYPES)[number];

export const WEBHOOK_STATUSES = ['active', 'disabled'] as const;

const TIMESTAMP = 'ISO 8601 date-time, UTC.';

/** A user of the tenant, by id: the one who created an endpoint. */
export const webhookCreatorSchema = z.object({ type: z.literal('user'), userId: z.string() });

export const webhookEndpointSchema = z.object({
  id,
  tenantId: id,
  url: z.string().check(z.describe('Where the events are POSTed.')),
  eventTypes: z
    .array(z.enum(WEBHOOK_EVENT_TYPES))
    .check(z.describe('The event types the endpoint receives.')),
  description: z.nullable(z.string()).check(z.describe('What the endpoint is for; `null` = none.')),
  status: z
    .enum(WEBHOOK_STATUSES)
    .check(
      z.describe(
        '`disabled` after a delivery failed every attempt (over more than 24 hours): it gets no new deliveries.',
      ),
    ),
  disabledAt: z
    .nullable(timestamp)
    .check(z.describe(`When it was disabled; \`null\` = active. ${TIMESTAMP}`)),
  disabledReason: z.nullable(z.string()).check(z.describe('Why it was disabled; `null` = active.')),
  createdAt: timestamp.check(z.describe(TIMESTAMP)),
  createdBy: z.nullable(webhookCreatorSchema),
});
export type WebhookEndpoint = z.output<typeof webhookEndpointSchema>;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** One attempt of a delivery: what the endpoint answered, or why there was no answer. */
export const deliveryAttemptSchema = z.object({
  attempt: z.int().check(z.describe('1 for the first attempt.')),
  at: timestamp.check(z.describe(`When the attempt was sent. ${TIMESTAMP}`)),
  durationMs: z.int().check(z.describe('From sending the request to the answer or the error.')),
  httpStatus: z.nullable(z.int()).check(z.describe('The endpoint’s HTTP status; `null` = no answer.')),
  error: z
    .nullable(z.string())
    .check(
      z.describe(
        'Why there was no answer: `timeout`, `connection`, `redirect`, `refused` (refused by egress rules: the URL reaches an internal address; no duration is given) or `secret`; `null` when the endpoint answered.',
      ),
    ),
});
export type DeliveryAttempt = z.output<typeof deliveryAttemptSchema>;

/** One event sent to one endpoint, with every attempt. Its `id` is the `webhook-id` of every attempt. */
export const webhookDeliverySchema = z.object({
  id: z.string().check(z.describe('The `webhook-id` header: the same on every attempt (deduplicate on it).')),
  endpointId: id,
  tenantId: id,
  eventType: z.enum(DELIVERY_EVENT_TYPES),
  status: z
    .enum(DELIVERY_STATUSES)
    .check(z.describe('`pending` while attempts remain; `succeeded` on a 2xx; `failed` when none remain.')),
  createdAt: timestamp.check(z.describe(TIMESTAMP)),
  /** The delivered body, byte for byte what every attempt sends (the signature covers it). */
  payload: z.string(),
  attempts: z.array(deliveryAttemptSchema),
  nextAttemptAt: z
    .nullable(timestamp)
    .check(z.describe(`When the next attempt is due; \`null\` = none. ${TIMESTAMP}`)),
});
export type WebhookDelivery = z.output<typeof webhookDeliverySchema>;
