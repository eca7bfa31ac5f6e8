/**
 * The events a tenant's webhooks can subscribe to, and what publishing one takes. The webhook
 * machinery (storage, signing, delivery) and the code that notices events (key changes, the scheduled
 * alert check) meet here, so neither imports the other's internals.
 *
 * Names follow the audit events (`api_key.revoked`): `<entity>.<what happened>`, as Stripe's and
 * GitHub's do.
 */
export const WEBHOOK_EVENT_TYPES = [
  'kpi.quiet',
  'api_key.expiring',
  'api_key.revoked',
  'api_key.rolled',
  'integration.disabled',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** One thing that happened to a tenant, before it is fanned out to that tenant's endpoints. */
export interface WebhookEvent {
  type: WebhookEventType;
  tenantId: string;
  /** When it happened: ISO 8601 date-time, UTC. */
  occurredAt: string;
  /** The event's payload (`data` of the delivered body): ids and facts, never a secret. */
  data: Record<string, unknown>;
}

/** Enqueues the event's deliveries to every active endpoint of its tenant that subscribes to its type. */
export type Publish = (event: WebhookEvent) => Promise<void>;
