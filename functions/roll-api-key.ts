import * as z from 'zod/mini';
import { futureInstant, gracePeriodSchema } from '../lib/api-keys/inputs';
import { rollApiKey } from '../lib/api-keys/service';
import { apiKeyView, createdApiKeyView, rolledApiKeyViewSchema } from '../lib/api-keys/views';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { apiKeyIdParams } from '../lib/http/schemas';
import { adminActor, apiKeyExample, KEY_ID, NEW_KEY_ID } from '../lib/openapi/examples';
import { db, jwtEndpoint, publish } from '../lib/runtime';

/**
 * The body is optional. `expiresAt` is the new key's expiration (null: none); without it the new key
 * keeps the old key's lifetime.
 */
const rollApiKeyRequestSchema = z
  .strictObject({
    gracePeriodHours: z.optional(
      gracePeriodSchema.check(
        z.describe(
          'Hours the old key keeps working, 0 to 168 (7 days); default 24; 0 = the old key stops now (a leaked key). It never lengthens the old key’s life.',
        ),
      ),
    ),
    expiresAt: z
      .nullish(futureInstant)
      .check(
        z.describe(
          'Expiration of the new key, an ISO 8601 date-time with offset in the future; `null` = never. Absent: the old key’s lifetime, counted from now.',
        ),
      ),
  })
  .check(z.meta({ id: 'RollApiKeyRequest', description: 'Optional: without a body, the defaults.' }));

/**
 * POST /api-keys/{id}/roll (ADMIN): a new key with the same name and scope, its raw key in this
 * response only, and the old key expiring at the end of the grace period (default 24 h).
 */
export const route = defineRoute({
  operationId: 'rollApiKey',
  method: 'post',
  path: '/api-keys/{id}/roll',
  tag: 'API keys',
  summary: 'Roll an API key',
  description: [
    'ADMIN only. Replaces a key without downtime. Creates a new key with the same name and KPI scope (its raw key in this response only) and sets the old key to expire at the end of the grace period: both work until then. The body is optional: `gracePeriodHours` 0 to 168, default 24 (0: the old key stops now); `expiresAt` for the new key, which otherwise keeps the old key’s lifetime.',
    '',
    'Works at the plan maximum: the old key’s slot passes to the new one. A key is rolled once (409 `api-key-already-rolled`, with `replacedBy`: roll that key instead); a revoked or expired key cannot be rolled (409 `api-key-not-active`, with `keyStatus`).',
  ].join('\n'),
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: apiKeyIdParams,
  body: {
    schema: rollApiKeyRequestSchema,
    optional: true,
    examples: {
      grace: { summary: 'The old key works 48 more hours', value: { gracePeriodHours: 48 } },
      leaked: { summary: 'A leaked key: the old key stops now', value: { gracePeriodHours: 0 } },
    },
  },
  responses: {
    201: {
      description:
        'Rolled. Store `key` now: it cannot be shown again. `previous` is the old key as it is now.',
      schema: rolledApiKeyViewSchema,
      example: {
        ...apiKeyExample,
        id: NEW_KEY_ID,
        prefix: 'skm_7Qx2',
        key: 'skm_7Qx2Hk93LmPq0RstUvWx1yZaBcDeFgH4i',
        createdAt: '2026-09-01T08:00:00.000Z',
        expiresAt: '2027-10-16T22:47:15.899Z',
        lastUsedAt: null,
        replaces: { id: KEY_ID, prefix: 'skm_P97W' },
        previous: {
          ...apiKeyExample,
          expiresAt: '2026-09-03T08:00:00.000Z',
          rolledAt: '2026-09-01T08:00:00.000Z',
          rolledBy: adminActor,
          replacedBy: { id: NEW_KEY_ID, prefix: 'skm_7Qx2' },
        },
      },
    },
  },
  errors: ['NOT_FOUND', 'API_KEY_LIMIT_REACHED', 'API_KEY_NOT_ACTIVE', 'API_KEY_ALREADY_ROLLED'],
  core: async ({ params: { id }, body, user, origin }) => {
    const { created, previous } = await rollApiKey(
      db,
      {
        ...body,
        tenantId: user.tenantId,
        keyId: id,
        by: { type: 'user', userId: user.userId, email: user.email },
        origin,
      },
      publish,
    );
    const now = Date.now();
    return reply(201, { ...createdApiKeyView(created, now), previous: apiKeyView(previous, now) });
  },
});

/**
 * The key by id (Query on the index; GetItem again after a lost race), the tenant, its slot list
 * and the slot holders (BatchGet), then one transaction: the old key (Update), the new key and the
 * slot list (Put); api_key.rolled to the tenant's webhooks.
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['APIKEY#', 'TENANT#'],
    GetItem: ['APIKEY#'],
    PutItem: ['APIKEY#', 'AUDIT#', 'TENANT#'],
    UpdateItem: ['APIKEY#'],
  },
  indexes: ['gsi1'],
  publishesWebhookEvents: true,
});

export const handler = jwtEndpoint(route);
