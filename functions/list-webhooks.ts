import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { MAX_WEBHOOK_ENDPOINTS } from '../lib/domain/webhook';
import { defineRoute, reply } from '../lib/http/route';
import { webhookExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';
import { listEndpoints } from '../lib/webhooks/service';
import { webhookView, webhookViewSchema } from '../lib/webhooks/views';

const webhookListSchema = z
  .object({ items: z.array(webhookViewSchema) })
  .check(z.meta({ id: 'WebhookList', description: 'Every endpoint of the tenant, oldest first.' }));

/** GET /webhooks (ADMIN): at most MAX_WEBHOOK_ENDPOINTS, so one answer without paging. */
export const route = defineRoute({
  operationId: 'listWebhooks',
  method: 'get',
  path: '/webhooks',
  tag: 'Webhooks',
  summary: 'List webhook endpoints',
  description: `ADMIN. Every endpoint of the tenant (at most ${MAX_WEBHOOK_ENDPOINTS}), oldest first, with its status; never a secret. Not paged: the list is always complete.`,
  auth: 'jwt',
  roles: ['ADMIN'],
  responses: {
    200: { description: 'The endpoints.', schema: webhookListSchema, example: { items: [webhookExample] } },
  },
  errors: [],
  core: async ({ user }) => reply(200, { items: (await listEndpoints(db, user.tenantId)).map(webhookView) }),
});

/**
 * The tenant's endpoints (Query in its partition).
 */
export const deployment = defineDeployment({
  table: {
    Query: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
