import * as z from 'zod/mini';
import { listApiKeys } from '../lib/api-keys/service';
import {
  apiKeyListItemSchema,
  apiKeyView,
  keyPlanSchema,
  seesKeySources,
  withoutSource,
} from '../lib/api-keys/views';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { PAGE_NOTE, pageOf, pageQuerySchema } from '../lib/http/schemas';
import {
  adminActor,
  apiKeyExample,
  KPI_ID,
  NEW_KEY_ID,
  recentUsageExample,
  unusedExample,
} from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const apiKeyPageSchema = z
  .extend(pageOf(apiKeyListItemSchema), {
    plan: z
      .nullable(keyPlanSchema)
      .check(
        z.describe('The tenant’s plan, for "2 of 3 keys used"; `null` only if the tenant record is missing.'),
      ),
  })
  .check(z.meta({ id: 'ApiKeyPage', description: 'One page, oldest first, and the tenant’s plan.' }));

/**
 * GET /api-keys: every role of the tenant may see the list (the key page shows it to non-admins), with
 * the tenant's plan (name, key maximum, features) so a client can say "2 of 3 keys used". Where each
 * key was last used from is for ADMINs only (lib/api-keys/views.ts `sourceFields`).
 */
export const route = defineRoute({
  operationId: 'listApiKeys',
  method: 'get',
  path: '/api-keys',
  tag: 'API keys',
  summary: 'List API keys',
  description: `Every role may list the tenant’s keys; never the raw key. Each key has its KPI scope, its roll state, who created, rolled and revoked it, and its last 30 days of use (\`usage\`: requests and refusals per day, and, for ADMINs only, where the last request came from: \`lastSourceIp\` and \`lastUserAgent\` are \`null\` for other roles). The list also carries the tenant’s \`plan\`, so a client can say "2 of 3 keys used" and warn when the plan lacks push. ${PAGE_NOTE}`,
  auth: 'jwt',
  query: pageQuerySchema,
  responses: {
    200: {
      description: 'One page of keys, and the plan.',
      schema: apiKeyPageSchema,
      example: {
        items: [
          { ...apiKeyExample, usage: recentUsageExample },
          {
            ...apiKeyExample,
            id: NEW_KEY_ID,
            name: 'Revenue cron',
            prefix: 'skm_7Qx2',
            status: 'revoked',
            createdAt: '2026-08-20T10:00:00.000Z',
            expiresAt: null,
            lastUsedAt: null,
            revokedAt: '2026-08-21T10:00:00.000Z',
            kpiIds: [KPI_ID],
            createdBy: { type: 'operator', name: 'ops' },
            revokedBy: adminActor,
            usage: unusedExample,
          },
        ],
        plan: { name: 'business', apiKeyLimit: 5, features: ['kpi_push_measurement'] },
      },
    },
  },
  errors: [],
  core: async ({ query, user }) => {
    const list = await listApiKeys(db, user.tenantId, query);
    const now = Date.now();
    const sources = seesKeySources(user.role);
    return reply(200, {
      ...list,
      items: list.items.map((key) => ({
        ...apiKeyView(key, now),
        usage: sources ? key.usage : withoutSource(key.usage),
      })),
    });
  },
});

/**
 * The tenant's keys (Query on the index), their newest days of usage (Query on the table), the
 * users of their audit trail and the tenant (BatchGet).
 */
export const deployment = defineDeployment({
  table: {
    Query: ['APIKEY#'],
  },
  indexes: ['gsi1'],
});

export const handler = jwtEndpoint(route);
