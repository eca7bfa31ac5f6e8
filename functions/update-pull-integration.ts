import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { pullIntegrationIdParams } from '../lib/http/schemas';
import { pullIntegrationExample } from '../lib/openapi/examples';
import { updateIntegration } from '../lib/pull/definitions';
import { updatePullIntegrationSchema } from '../lib/pull/inputs';
import { integrationView, pullIntegrationViewSchema } from '../lib/pull/views';
import { jwtEndpoint, pullDeps } from '../lib/runtime';

/** PATCH /integrations/pull/{id} (ADMIN): a secret is replaced only when sent. */
export const route = defineRoute({
  operationId: 'updatePullIntegration',
  method: 'patch',
  path: '/integrations/pull/{id}',
  tag: 'Pull',
  summary: 'Change a pull integration',
  description:
    'ADMIN; plan feature `kpi_api_integration`. Fields not sent stay as they are; a secret of `auth` is replaced only when sent (a new authentication type needs its secret). Any change makes a failing or disabled integration active again, due at once; a new schedule moves the next run to its next slot.',
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: pullIntegrationIdParams,
  body: {
    schema: updatePullIntegrationSchema,
    examples: {
      schedule: { summary: 'Every hour instead', value: { schedule: { every: 'hour' } } },
      token: { summary: 'A new token', value: { auth: { type: 'bearer', token: 'sk_live_rotated' } } },
    },
  },
  responses: {
    200: { description: 'Changed.', schema: pullIntegrationViewSchema, example: pullIntegrationExample },
  },
  errors: ['FEATURE_NOT_ENABLED', 'NOT_FOUND', 'KPI_ARCHIVED'],
  core: async ({ params: { id }, body, user, audit }) => {
    const updated = await updateIntegration(pullDeps, user.tenantId, id, body, audit);
    return reply(200, integrationView(updated, user.role));
  },
});

/**
 * The integration (Get), new bindings' KPIs (BatchGet), the changed integration (Put); credentials
 * kept are opened, and all sealed again, with the secrets key.
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['KPI#', 'TENANT#'],
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#', 'TENANT#'],
  },
  secrets: ['secretsKey'],
});

export const handler = jwtEndpoint(route);
