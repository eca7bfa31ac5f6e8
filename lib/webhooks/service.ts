import type { Seal } from '../crypto/seal';
import type { Database } from '../db/client';
import { retryingConflicts } from '../db/errors';
import { keys } from '../db/keys';
import type { Page, PageRequest } from '../db/pagination';
import {
  deliveryPage,
  EndpointLimitReached,
  endpointsOf,
  putDeliveryAttempt,
  putEndpoint,
  putEndpointDeletion,
  readEndpoint,
  type StoredEndpoint,
} from '../db/webhooks';
import { countInWindow } from '../db/window-counters';
import { type AuditContext, auditEvent, systemContext } from '../domain/audit-event';
import type { WebhookEventType } from '../domain/webhook';
import {
  MAX_WEBHOOK_ENDPOINTS,
  TEST_DELIVERIES_PER_MINUTE,
  WEBHOOK_TEST_EVENT,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '../domain/webhook';
import type { Egress } from '../egress';
import { tenantUrlProblem, urlForLog } from '../egress/urls';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { logAuditEvent } from '../logger';
import { DELIVERY_LOG_DAYS, deliveryBody, recordDelivery } from './publisher';
import { newWebhookSecret, secretBinding } from './secrets';
import { isSuccess, sendAttempt } from './send';

/**
 * The use cases of webhook endpoints: create (the secret in the answer only), list, delete, read the
 * delivery log and send a test delivery. Another tenant's endpoint is NOT_FOUND, as an unknown one.
 * Creating and deleting one are written with their audit events in one transaction; an event names
 * the endpoint's URL by its origin and a hash of the rest (`urlForLog`), since its path or query may
 * hold a secret (a Slack-style URL).
 */
export interface WebhookDeps {
  db: Database;
  secrets: Seal;
  /** The local stage: `http://` to this machine is allowed (lib/egress/urls.ts). */
  local: boolean;
  now?: () => number;
}

/** A new endpoint with its signing secret: returned once, at creation, and never stored raw. */
export interface CreatedEndpoint extends WebhookEndpoint {
  secret: string;
}

const notFound = (id: string) => new AppError('NOT_FOUND', `Webhook endpoint ${id} not found.`);

export const createEndpoint = async (
  { db, secrets, local, now = Date.now }: WebhookDeps,
  input: {
    tenantId: string;
    url: string;
    eventTypes: WebhookEventType[];
    description?: string | null | undefined;
    createdBy: WebhookEndpoint['createdBy'];
  },
  context: AuditContext = systemContext('service'),
): Promise<CreatedEndpoint> => {
  const problem = tenantUrlProblem(input.url, { local });
  if (problem) {
    throw new AppError('VALIDATION_FAILED', `The url ${problem}.`, {
      errors: [{ path: 'url', message: problem }],
    });
  }
  const at = now();
  const endpoint: WebhookEndpoint = {
    id: uuidv7(at),
    tenantId: input.tenantId,
    url: input.url,
    eventTypes: [...new Set(input.eventTypes)],
    description: input.description ?? null,
    status: 'active',
    disabledAt: null,
    disabledReason: null,
    createdAt: new Date(at).toISOString(),
    createdBy: input.createdBy,
  };
  const secret = newWebhookSecret();
  const sealedSecret = await secrets.seal(secret, secretBinding(endpoint.tenantId, endpoint.id));
  const event = auditEvent(
    context,
    {
      type: 'webhook.created',
      tenantId: endpoint.tenantId,
      target: { type: 'webhook', id: endpoint.id },
      details: { ...urlForLog(endpoint.url), eventTypes: endpoint.eventTypes },
    },
    at,
  );
  try {
    await retryingConflicts('webhook', () =>
      putEndpoint(db, { endpoint, sealedSecret, deletedAt: null }, MAX_WEBHOOK_ENDPOINTS, event),
    );
    logAuditEvent(event);
  } catch (error) {
    if (!(error instanceof EndpointLimitReached)) throw error;
    throw new AppError(
      'WEBHOOK_LIMIT_REACHED',
      `A tenant may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first.`,
      { extensions: { limit: MAX_WEBHOOK_ENDPOINTS } },
    );
  }
  return { ...endpoint, secret };
};

/** The tenant's endpoints, oldest first (at most MAX_WEBHOOK_ENDPOINTS: one page). */
export const listEndpoints = async (db: Database, tenantId: string): Promise<WebhookEndpoint[]> =>
  (await endpointsOf(db, tenantId))
    .filter(({ deletedAt }) => deletedAt === null)
    .map(({ endpoint }) => endpoint);

const liveEndpoint = async (db: Database, tenantId: string, id: string): Promise<StoredEndpoint> => {
  const stored = await readEndpoint(db, tenantId, id);
  if (!stored || stored.deletedAt !== null) throw notFound(id);
  return stored;
};

/**
 * Deletes an endpoint: it gets no more deliveries (pending ones end at their next attempt) and frees
 * its place. Deleting it again is the same success; the tombstone and the log go after
 * DELIVERY_LOG_DAYS. Returns whether this call deleted it.
 */
export const deleteEndpoint = async (
  db: Database,
  tenantId: string,
  id: string,
  context: AuditContext = systemContext('service'),
  now = Date.now(),
): Promise<boolean> => {
  const stored = await readEndpoint(db, tenantId, id);
  if (!stored) throw notFound(id);
  if (stored.deletedAt !== null) return false;
  const event = auditEvent(
    context,
    {
      type: 'webhook.deleted',
      tenantId,
      target: { type: 'webhook', id },
      details: { ...urlForLog(stored.endpoint.url), eventTypes: stored.endpoint.eventTypes },
    },
    now,
  );
  const deleted = await retryingConflicts('webhook', () =>
    putEndpointDeletion(
      db,
      tenantId,
      id,
      new Date(now).toISOString(),
      Math.floor(now / 1000) + DELIVERY_LOG_DAYS * 86_400,
      event,
    ),
  );
  if (deleted) logAuditEvent(event);
  return deleted;
};

/** One page of the endpoint's delivery log, newest first. */
export const listDeliveries = async (
  db: Database,
  tenantId: string,
  id: string,
  page: PageRequest,
): Promise<Page<WebhookDelivery>> => {
  await liveEndpoint(db, tenantId, id);
  return deliveryPage(db, id, page);
};

/**
 * Counts a test delivery against the tenant's TEST_DELIVERIES_PER_MINUTE (a fixed minute): past it,
 * 429 with Retry-After until the minute ends.
 */
const admitTestDelivery = async (db: Database, tenantId: string, at: number) => {
  const windowSeconds = 60;
  const windowStart = Math.floor(at / 1000 / windowSeconds) * windowSeconds;
  const count = await countInWindow(db, keys.webhookTests(tenantId), { windowStart, windowSeconds });
  if (count <= TEST_DELIVERIES_PER_MINUTE) return;
  const retryAfter = Math.max(1, Math.ceil(windowStart + windowSeconds - at / 1000));
  throw new AppError(
    'RATE_LIMIT_EXCEEDED',
    `A tenant may send ${TEST_DELIVERIES_PER_MINUTE} test deliveries per minute. Retry after ${retryAfter} s.`,
    { headers: { 'Retry-After': String(retryAfter) } },
  );
};

/**
 * A test delivery (`webhook.test`), sent now, once, and answered with its result, as GitHub's "ping":
 * whoever sets up an endpoint sees at once whether it receives and verifies. It is in the log like any
 * delivery but never retried, and it is sent to a disabled endpoint too (to check it works again); it
 * never disables one. A tenant sends at most TEST_DELIVERIES_PER_MINUTE.
 */
export const sendTestDelivery = async (
  { db, secrets, egress, now = Date.now }: WebhookDeps & { egress: Egress },
  tenantId: string,
  id: string,
): Promise<WebhookDelivery> => {
  const { endpoint, sealedSecret } = await liveEndpoint(db, tenantId, id);
  const at = now();
  await admitTestDelivery(db, tenantId, at);
  const timestamp = new Date(at).toISOString();
  const payload = deliveryBody(WEBHOOK_TEST_EVENT, timestamp, { webhookId: endpoint.id });
  const delivery = await recordDelivery(db, endpoint, WEBHOOK_TEST_EVENT, payload, at);
  const attempt = await sendAttempt({
    egress,
    url: endpoint.url,
    id: delivery.id,
    payload,
    secret: await secrets.open(sealedSecret, secretBinding(endpoint.tenantId, endpoint.id)),
    attempt: 1,
    at,
  });
  const status = isSuccess(attempt) ? 'succeeded' : 'failed';
  await putDeliveryAttempt(db, delivery, attempt, status, null);
  return { ...delivery, status, attempts: [attempt], nextAttemptAt: null };
};
