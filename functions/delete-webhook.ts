import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { webhookIdParams } from '../lib/http/schemas';
import { db, jwtEndpoint } from '../lib/runtime';
import { deleteEndpoint } from '../lib/webhooks/service';

/** DELETE /webhooks/{id} (ADMIN): no more deliveries; idempotent; another tenant's endpoint is 404. */
export const route = defineRoute({
  operationId: 'deleteWebhook',
  method: 'delete',
  path: '/webhooks/{id}',
  tag: 'Webhooks',
  summary: 'Delete a webhook endpoint',
  description:
    'ADMIN. The endpoint gets no more deliveries (pending retries end) and no longer counts toward the maximum. Deleting it again is 204 too; its delivery log is gone with it.',
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: webhookIdParams,
  responses: { 204: { description: 'Deleted.' } },
  errors: ['NOT_FOUND'],
  core: async ({ params: { id }, user, audit }) => {
    await deleteEndpoint(db, user.tenantId, id, audit);
    return reply(204, undefined);
  },
});

/**
 * The endpoint (BatchGet), then its tombstone and the count, in one transaction (Update).
 */
export const deployment = defineDeployment({
  table: {
    PutItem: ['AUDIT#'],
    UpdateItem: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
