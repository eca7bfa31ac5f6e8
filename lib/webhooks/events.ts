/**
 * What publishing an event takes. The webhook machinery (storage, signing, delivery) and the code that
 * notices events (key changes, the scheduled alert check) meet here, so neither imports the other's
 * internals; the event types themselves are the webhook entity's (lib/domain/webhook.ts).
 */
import type { WebhookEventType } from '../domain/webhook';

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
