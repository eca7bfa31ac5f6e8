import { defineDeployment } from '../lib/deployment';
import { TEST_DELIVERIES_PER_MINUTE } from '../lib/domain/webhook';
import { defineRoute, reply } from '../lib/http/route';
import { webhookIdParams } from '../lib/http/schemas';
import { deliveryExample } from '../lib/openapi/examples';
import { egress, jwtEndpoint, webhookDeps } from '../lib/runtime';
import { ATTEMPT_TIMEOUT_MS } from '../lib/webhooks/send';
import { sendTestDelivery } from '../lib/webhooks/service';
import { deliveryView, deliveryViewSchema } from '../lib/webhooks/views';

/**
 * POST /webhooks/{id}/test (ADMIN): one `webhook.test` delivery, sent while the caller waits, as
 * GitHub's ping; the answer is its result.
 */
export const route = defineRoute({
  operationId: 'testWebhook',
  method: 'post',
  path: '/webhooks/{id}/test',
  tag: 'Webhooks',
  summary: 'Send a test delivery',
  description: `ADMIN. Sends one \`webhook.test\` event (\`data\`: \`{ "webhookId" }\`), signed like every delivery, now, and answers with the delivery and its one attempt: \`succeeded\` on a 2xx, else \`failed\` with the HTTP status or the error. Never retried, never disables the endpoint, sent to a disabled endpoint too; it is in the delivery log. Waits at most ${ATTEMPT_TIMEOUT_MS / 1000} s for the endpoint. An endpoint whose address the egress rules refuse (an internal network) gets nothing; the attempt's error says only \`refused\`. A tenant may send ${TEST_DELIVERIES_PER_MINUTE} test deliveries per minute; more are 429 with Retry-After until the minute ends. No body.`,
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: webhookIdParams,
  responses: {
    200: {
      description: 'Sent; the delivery with its attempt.',
      schema: deliveryViewSchema,
      example: {
        ...deliveryExample,
        eventType: 'webhook.test',
        status: 'succeeded',
        payload: `{"type":"webhook.test","timestamp":"2026-09-02T10:00:00.120Z","data":{"webhookId":"${deliveryExample.endpointId}"}}`,
        attempts: [
          { attempt: 1, at: '2026-09-02T10:00:00.130Z', durationMs: 187, httpStatus: 204, error: null },
        ],
        nextAttemptAt: null,
      },
    },
  },
  errors: ['NOT_FOUND', 'RATE_LIMIT_EXCEEDED'],
  core: async ({ params: { id }, user }) =>
    reply(200, deliveryView(await sendTestDelivery({ ...webhookDeps, egress }, user.tenantId, id))),
});

/**
 * The endpoint (BatchGet), the tenant's test count of the minute (Update), the test delivery (Put)
 * and its attempt (Update). The secret opens with the secrets key (one sealed before it existed
 * with the JWT key).
 */
export const deployment = defineDeployment({
  table: {
    PutItem: ['WEBHOOK#'],
    UpdateItem: ['TENANT#', 'WEBHOOK#'],
  },
  secrets: ['secretsKey'],
  tenantUrls: {
    reservedConcurrency: 10,
  },
  timeout: 10,
});

export const handler = jwtEndpoint(route);
