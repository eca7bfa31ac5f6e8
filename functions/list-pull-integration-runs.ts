import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { namedPageOf, PAGE_NOTE, pageQuerySchema, pullIntegrationIdParams } from '../lib/http/schemas';
import { pullRunExample } from '../lib/openapi/examples';
import { listRuns } from '../lib/pull/service';
import { pullRunViewSchema, runView } from '../lib/pull/views';
import { jwtEndpoint, pullDeps } from '../lib/runtime';

/** GET /integrations/pull/{id}/runs (every role): the run log, newest first, kept 90 days. */
export const route = defineRoute({
  operationId: 'listPullIntegrationRuns',
  method: 'get',
  path: '/integrations/pull/{id}/runs',
  tag: 'Pull',
  summary: 'List the runs of a pull integration',
  description: `Every role; plan feature \`kpi_api_integration\`. The runs of the last 90 days, newest first: start, duration, HTTP status, outcome (\`stored\`, \`partial\`, \`failed\`), each binding’s result (\`created\`, \`updated\`, or the problem) and the error class (\`timeout\`, \`connection\`, \`http_status\`, \`not_json\`, \`too_large\`, \`auth\`). Values and problems only, never the body or a secret. ${PAGE_NOTE}`,
  auth: 'jwt',
  pathParams: pullIntegrationIdParams,
  query: pageQuerySchema,
  responses: {
    200: {
      description: 'One page of runs.',
      schema: namedPageOf(pullRunViewSchema, { id: 'PullRunPage', description: 'One page, newest first.' }),
      example: { items: [pullRunExample] },
    },
  },
  errors: ['FEATURE_NOT_ENABLED', 'NOT_FOUND'],
  core: async ({ params: { id }, query, user }) => {
    const page = await listRuns(pullDeps, user.tenantId, id, query);
    return reply(200, { ...page, items: page.items.map(runView) });
  },
});

/**
 * The integration (Get), its runs (Query of PULL#).
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['TENANT#'],
    Query: ['PULL#'],
  },
});

export const handler = jwtEndpoint(route);
