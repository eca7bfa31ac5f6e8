import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { apiKeySchema } from '../lib/domain/api-key';
import { PLANS } from '../lib/domain/plan';
import { id } from '../lib/domain/values';
import { defineKeyRoute, reply } from '../lib/http/route';
import { KEY_ID } from '../lib/openapi/examples';
import { checkApiKey } from '../lib/push/key-check';
import { keyEndpoint, pushDeps } from '../lib/runtime';

const keyCheckSchema = z
  .object({
    key: z
      .extend(
        z.pick(apiKeySchema, {
          id: true,
          prefix: true,
          name: true,
          createdAt: true,
          expiresAt: true,
          allowedSources: true,
        }),
        {
          status: z.literal('active'),
        },
      )
      .check(
        z.describe(
          'The key: `id`, `prefix`, `name`, `status` (always `active` here), `createdAt`, `expiresAt` (`null` = never), `allowedSources` (`null` = any address).',
        ),
      ),
    source: z
      .object({
        ip: z.nullable(z.string()).check(z.describe('The caller’s address, as API Gateway saw it.')),
        allowed: z
          .literal(true)
          .check(
            z.describe(
              'Always `true` here: from an address the key does not allow, the check is 403 `source-not-allowed`, naming the address.',
            ),
          ),
      })
      .check(z.describe('Where the request came from, and that the key may be used from there.')),
    organization: z
      .object({ id, plan: z.enum(PLANS), pushEnabled: z.boolean() })
      .check(
        z.describe(
          'The key’s tenant: `id`, `plan`, and `pushEnabled`, whether the plan includes `kpi_push_measurement` (without it a push is 403 `feature-not-enabled`).',
        ),
      ),
    rateLimit: z
      .object({ limit: z.int(), remaining: z.int(), resetSeconds: z.int(), windowSeconds: z.int() })
      .check(
        z.describe(
          'The budget the next push would see: `limit` requests per `windowSeconds`, `remaining` in this window, `resetSeconds` until it resets. The check itself spends none.',
        ),
      ),
  })
  .check(
    z.meta({
      id: 'KeyCheck',
      description: 'The key behind `x-api-key`, its organization and its rate-limit budget.',
    }),
  );

/** GET /integrations/push/key: the key behind `x-api-key`, its organization and its budget. */
export const route = defineKeyRoute({
  operationId: 'checkPushKey',
  method: 'get',
  path: '/integrations/push/key',
  tag: 'Push',
  summary: 'Check an API key',
  description: [
    'Does this key work, and for what? For a CI job’s setup step. Answers with the key, its organization (plan, whether it may push) and the key’s current rate-limit budget, without spending any of it: the `RateLimit-*` headers say what the next push would see.',
    '',
    'A key a push would refuse is refused the same way: 401 `invalid-api-key` (missing, malformed, unknown), 403 `source-not-allowed` (a request from an address outside the key’s `allowedSources`, naming the address seen), `api-key-revoked`, `api-key-expired`, `tenant-inactive`. A key whose plan lacks `kpi_push_measurement` is 200 with `pushEnabled: false`: the key itself is fine. `source` names the address the service saw.',
  ].join('\n'),
  auth: 'apiKey',
  rateLimited: true,
  responses: {
    200: {
      description: 'The key works.',
      schema: keyCheckSchema,
      example: {
        key: {
          id: KEY_ID,
          prefix: 'skm_P97W',
          name: 'Nightly cron',
          status: 'active',
          createdAt: '2026-08-14T09:12:44.101Z',
          expiresAt: '2027-06-30T00:00:00.000Z',
          allowedSources: ['203.0.113.0/28'],
        },
        source: { ip: '203.0.113.7', allowed: true },
        organization: { id: '01936c00-0a1b-7c2d-8e3f-405162738495', plan: 'business', pushEnabled: true },
        rateLimit: { limit: 300, remaining: 297, resetSeconds: 42, windowSeconds: 60 },
      },
    },
  },
  errors: [],
  core: async ({ apiKey, source }) => {
    const { body, headers } = await checkApiKey(pushDeps, apiKey, source.sourceIp);
    return reply(200, body, headers);
  },
});

/**
 * The key and its usage item (Get), the tenant (Get). No JWT key, no CORS, as the push routes.
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['APIKEY#', 'TENANT#'],
  },
});

export const handler = keyEndpoint(route);
