import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { namedPageOf, PAGE_NOTE, pageQuerySchema } from '../lib/http/schemas';
import { pullIntegrationExample } from '../lib/openapi/examples';
import { listIntegrations } from '../lib/pull/service';
import { integrationView, pullIntegrationViewSchema } from '../lib/pull/views';
import { jwtEndpoint, pullDeps } from '../lib/runtime';

/** GET /integrations/pull (every role): status, last run and next run of each. */
export const route = defineRoute({
  operationId: 'listPullIntegrations',
  method: 'get',
  path: '/integrations/pull',
  tag: 'Pull',
  summary: 'List pull integrations',
  description: `Every role; plan feature \`kpi_api_integration\`. The tenant’s integrations, oldest first, each with its \`status\`, \`lastRun\` and \`nextRunAt\`; secrets only as \`{ "set": true }\`; for other roles than ADMIN, URLs without their query values (\`?api_key=[redacted]\`). ${PAGE_NOTE}`,
  auth: 'jwt',
  query: pageQuerySchema,
  responses: {
    200: {
      description: 'One page of integrations.',
      schema: namedPageOf(pullIntegrationViewSchema, {
        id: 'PullIntegrationPage',
        description: 'One page, oldest first.',
      }),
      example: { items: [pullIntegrationExample] },
    },
  },
  errors: ['FEATURE_NOT_ENABLED'],
  core: async ({ query, user }) => {
    const page = await listIntegrations(pullDeps, user.tenantId, query);
    return reply(200, { ...page, items: page.items.map((item) => integrationView(item, user.role)) });
  },
});

/**
 * The tenant's integrations (Query in its partition).
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['TENANT#'],
    Query: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
