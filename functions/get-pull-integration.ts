import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { pullIntegrationIdParams } from '../lib/http/schemas';
import { pullIntegrationExample } from '../lib/openapi/examples';
import { integrationWithUsage } from '../lib/pull/service';
import { integrationView, pullIntegrationDetailSchema } from '../lib/pull/views';
import { jwtEndpoint, pullDeps } from '../lib/runtime';

/** GET /integrations/pull/{id} (every role): the integration and its runs per day. */
export const route = defineRoute({
  operationId: 'getPullIntegration',
  method: 'get',
  path: '/integrations/pull/{id}',
  tag: 'Pull',
  summary: 'Get a pull integration',
  description:
    'Every role; plan feature `kpi_api_integration`. The integration (secrets only as `{ "set": true }`; for other roles than ADMIN, URLs without their query values: `?api_key=[redacted]`) and its usage per UTC day of the last 30 days: runs, measurements stored, failed runs and their error classes.',
  auth: 'jwt',
  pathParams: pullIntegrationIdParams,
  responses: {
    200: {
      description: 'The integration.',
      schema: pullIntegrationDetailSchema,
      example: {
        ...pullIntegrationExample,
        usage: [
          {
            date: '2026-09-02',
            runs: 1,
            measurements: 1,
            failed: 0,
            failures: { timeout: 0, connection: 0, http_status: 0, not_json: 0, too_large: 0, auth: 0 },
          },
        ],
      },
    },
  },
  errors: ['FEATURE_NOT_ENABLED', 'NOT_FOUND'],
  core: async ({ params: { id }, user }) => {
    const { stored, usage } = await integrationWithUsage(pullDeps, user.tenantId, id);
    return reply(200, { ...integrationView(stored, user.role), usage });
  },
});

/**
 * The integration (Get), its days of usage (Query of PULL#).
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['TENANT#'],
    Query: ['PULL#'],
  },
});

export const handler = jwtEndpoint(route);
