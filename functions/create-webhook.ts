import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { MAX_WEBHOOK_ENDPOINTS, WEBHOOK_EVENT_TYPES } from '../lib/domain/webhook';
import { MAX_TENANT_URL_LENGTH } from '../lib/egress/urls';
import { defineRoute, reply } from '../lib/http/route';
import { webhookExample } from '../lib/openapi/examples';
import { jwtEndpoint, webhookDeps } from '../lib/runtime';
import { createEndpoint } from '../lib/webhooks/service';
import { createdWebhookView, createdWebhookViewSchema } from '../lib/webhooks/views';

const createWebhookRequestSchema = z
  .strictObject({
    url: z
      .string()
      .check(
        z.minLength(1, 'url must not be empty'),
        z.maxLength(MAX_TENANT_URL_LENGTH, `url must have at most ${MAX_TENANT_URL_LENGTH} characters`),
        z.describe(
          'Where to POST the events: `https://`, no user name or password, not a private, loopback or link-local address (the local stage also allows `http://` to the machine it runs on).',
        ),
      ),
    eventTypes: z
      .array(z.enum(WEBHOOK_EVENT_TYPES))
      .check(
        z.minLength(1, 'eventTypes must name at least one event type'),
        z.describe(
          `The events to receive, at least one of: ${WEBHOOK_EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}.`,
        ),
      ),
    description: z
      .nullish(z.string().check(z.maxLength(200, 'description must have at most 200 characters')))
      .check(z.describe('What the endpoint is for, up to 200 characters; `null` or absent = none.')),
  })
  .check(z.meta({ id: 'CreateWebhookRequest', description: 'A new webhook endpoint.' }));

/** POST /webhooks (ADMIN): the signing secret is in this response only. */
export const route = defineRoute({
  operationId: 'createWebhook',
  method: 'post',
  path: '/webhooks',
  tag: 'Webhooks',
  summary: 'Create a webhook endpoint',
  description: `ADMIN. The endpoint receives the event types it names, signed as Standard Webhooks specifies, with the \`secret\` of this response: it is shown once, never again. At most ${MAX_WEBHOOK_ENDPOINTS} endpoints per tenant (409 \`webhook-limit-reached\`). The url must be \`https://\` without credentials and not an address of a private, loopback or link-local network (400 naming \`url\`).`,
  auth: 'jwt',
  roles: ['ADMIN'],
  body: {
    schema: createWebhookRequestSchema,
    examples: {
      keys: {
        summary: 'Key events to a security channel',
        value: {
          url: 'https://hooks.acme.example/strategy-service',
          eventTypes: ['api_key.revoked', 'api_key.rolled'],
          description: 'Security channel',
        },
      },
    },
  },
  responses: {
    201: {
      description: 'Created. Store `secret` now: it cannot be shown again.',
      schema: createdWebhookViewSchema,
      example: { ...webhookExample, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1FTqRMpVuG4=' },
    },
  },
  errors: ['WEBHOOK_LIMIT_REACHED'],
  core: async ({ body, user, audit }) => {
    const created = await createEndpoint(
      webhookDeps,
      { ...body, tenantId: user.tenantId, createdBy: { type: 'user', userId: user.userId } },
      audit,
    );
    return reply(201, createdWebhookView(created));
  },
});

/**
 * The endpoint and the tenant's endpoint count, in one transaction (Put, Update). The secret is
 * sealed with the secrets key.
 */
export const deployment = defineDeployment({
  table: {
    PutItem: ['AUDIT#', 'TENANT#'],
    UpdateItem: ['TENANT#'],
  },
  secrets: ['secretsKey'],
});

export const handler = jwtEndpoint(route);
