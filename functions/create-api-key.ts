import * as z from 'zod/mini';
import {
  ALLOWED_SOURCES_INPUT,
  allowedSourcesSchema,
  futureInstant,
  keyNameSchema,
  kpiScopeSchema,
} from '../lib/api-keys/inputs';
import { createApiKey } from '../lib/api-keys/service';
import { createdApiKeyView, createdApiKeyViewSchema } from '../lib/api-keys/views';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { apiKeyExample, KPI_ID } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const createApiKeyRequestSchema = z
  .strictObject({
    name: keyNameSchema.check(
      z.describe('A description of the key’s use, 1 to 100 characters after trimming.'),
    ),
    expiresAt: z
      .nullish(futureInstant)
      .check(
        z.describe(
          'Optional expiration, an ISO 8601 date-time with offset in the future; `null` or absent = never expires.',
        ),
      ),
    kpiIds: z
      .nullish(kpiScopeSchema)
      .check(
        z.describe(
          'Optional KPI scope: 1 to 100 ids of KPIs of the tenant, each once; the key may push to these only. `null` or absent = every KPI. `PATCH /api-keys/{id}` changes it; a roll keeps it.',
        ),
      ),
    allowedSources: z
      .nullish(allowedSourcesSchema)
      .check(z.describe(`${ALLOWED_SOURCES_INPUT} \`null\` or absent = any address.`)),
  })
  .check(
    z.meta({
      id: 'CreateApiKeyRequest',
      description: 'A new API key: its name, and optionally when it expires and which KPIs it may push to.',
    }),
  );

/** POST /api-keys (ADMIN): the raw key is in this response only (spec 2.7). */
export const route = defineRoute({
  operationId: 'createApiKey',
  method: 'post',
  path: '/api-keys',
  tag: 'API keys',
  summary: 'Create an API key',
  description:
    'ADMIN only. The raw key is in this response only. The plan maximum counts active keys: Free 3, Business 5, Enterprise unlimited; past it, 409 `api-key-limit-reached`. `kpiIds` limits the key to some KPIs of the tenant: a push of it to another KPI is 403 `kpi-outside-key-scope`; an id that is not a KPI of the tenant is 400 naming it. `allowedSources` limits the key to some source addresses: a request from another is 403 `source-not-allowed`; `PATCH /api-keys/{id}` changes the list.',
  auth: 'jwt',
  roles: ['ADMIN'],
  body: {
    schema: createApiKeyRequestSchema,
    examples: {
      expiring: {
        summary: 'A key that expires',
        value: { name: 'Nightly cron', expiresAt: '2027-06-30T00:00:00Z' },
      },
      forever: { summary: 'A key without expiry', value: { name: 'CI pipeline' } },
      scoped: { summary: 'A key for one KPI only', value: { name: 'Revenue cron', kpiIds: [KPI_ID] } },
      fromCronHost: {
        summary: 'A key that works only from a cron host and an office network',
        value: { name: 'Nightly cron', allowedSources: ['203.0.113.7', '2001:db8:4::/48'] },
      },
    },
  },
  responses: {
    201: {
      description: 'Created. Store `key` now: it cannot be shown again.',
      schema: createdApiKeyViewSchema,
      example: { ...apiKeyExample, key: 'skm_P97WNdc12kdSnusc4Crjntlg4690XA7RG', lastUsedAt: null },
    },
  },
  errors: ['API_KEY_LIMIT_REACHED'],
  core: async ({ body, user, origin }) => {
    const created = await createApiKey(db, {
      ...body,
      tenantId: user.tenantId,
      createdBy: { type: 'user', userId: user.userId, email: user.email },
      origin,
    });
    return reply(201, createdApiKeyView(created));
  },
});

/**
 * The tenant's keys (Query on the index); tenant, slot list, slot holders and the scope's KPIs
 * (BatchGet); then the key and the slot list (Put, in a transaction).
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['APIKEY#', 'KPI#', 'TENANT#'],
    PutItem: ['APIKEY#', 'AUDIT#', 'TENANT#'],
  },
  indexes: ['gsi1'],
});

export const handler = jwtEndpoint(route);
