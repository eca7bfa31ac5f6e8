import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { namedPageOf, PAGE_NOTE, pageQuerySchema, webhookIdParams } from '../lib/http/schemas';
import { deliveryExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';
import { MAX_DELIVERY_ATTEMPTS } from '../lib/webhooks/schedule';
import { listDeliveries } from '../lib/webhooks/service';
import { deliveryView, deliveryViewSchema } from '../lib/webhooks/views';

const deliveryPageSchema = namedPageOf(deliveryViewSchema, {
  id: 'WebhookDeliveryPage',
  description: 'One page of deliveries, newest first.',
});

/** GET /webhooks/{id}/deliveries (ADMIN): the delivery log, newest first, each with every attempt. */
export const route = defineRoute({
  operationId: 'listWebhookDeliveries',
  method: 'get',
  path: '/webhooks/{id}/deliveries',
  tag: 'Webhooks',
  summary: 'List the deliveries of a webhook endpoint',
  description: `ADMIN. The endpoint’s deliveries of the last 30 days, newest first. Each has every attempt (up to ${MAX_DELIVERY_ATTEMPTS}): when, the HTTP status or why there was none, how long it took, and when the next attempt is due. ${PAGE_NOTE}`,
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: webhookIdParams,
  query: pageQuerySchema,
  responses: {
    200: {
      description: 'One page of deliveries.',
      schema: deliveryPageSchema,
      example: { items: [deliveryExample] },
    },
  },
  errors: ['NOT_FOUND'],
  core: async ({ params: { id }, query, user }) => {
    const page = await listDeliveries(db, user.tenantId, id, query);
    return reply(200, { ...page, items: page.items.map(deliveryView) });
  },
});

/**
 * The endpoint (BatchGet), then its deliveries (Query in its partition).
 */
export const deployment = defineDeployment({
  table: {
    Query: ['WEBHOOK#'],
  },
});

export const handler = jwtEndpoint(route);
