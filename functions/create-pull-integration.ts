import { defineDeployment } from '../lib/deployment';
import { PULL_INTEGRATION_LIMITS } from '../lib/domain/plan';
import { defineRoute, reply } from '../lib/http/route';
import { pullDefinitionExample, pullIntegrationExample } from '../lib/openapi/examples';
import { createIntegration } from '../lib/pull/definitions';
import { createPullIntegrationSchema } from '../lib/pull/inputs';
import { integrationView, pullIntegrationViewSchema } from '../lib/pull/views';
import { jwtEndpoint, pullDeps } from '../lib/runtime';

/** POST /integrations/pull (ADMIN): the credentials are in the request only, never in an answer. */
export const route = defineRoute({
  operationId: 'createPullIntegration',
  method: 'post',
  path: '/integrations/pull',
  tag: 'Pull',
  summary: 'Create a pull integration',
  description:
    'ADMIN; plan feature `kpi_api_integration`. The service GETs `url` on `schedule` and stores the values each binding’s JMESPath finds in the JSON answer as measurements of its KPI, as a push would. The first run is the scheduler’s next pass. Secrets in `auth` are write-only: every answer shows them as `{ "set": true }`. The url (and an OAuth `tokenUrl`) must be `https://` without credentials and not an address of a private, loopback or link-local network (400 naming the field); each binding’s KPI must be the tenant’s, of its type (404 with `missingKpiIds`). A JMESPath expression that could never fit its evaluation bounds (more than 16 copies of its input, 100 parts or 20 levels) is 400 naming the binding and field.' +
    ` The plan maximum of integrations: Free ${PULL_INTEGRATION_LIMITS.free}, Business ${PULL_INTEGRATION_LIMITS.business}, Enterprise ${PULL_INTEGRATION_LIMITS.enterprise}; past it, 409 \`pull-integration-limit-reached\`.`,
  auth: 'jwt',
  roles: ['ADMIN'],
  body: {
    schema: createPullIntegrationSchema,
    examples: {
      bearer: {
        summary: 'A billing API’s MRR every morning, with a bearer token',
        value: pullDefinitionExample,
      },
    },
  },
  responses: {
    201: {
      description: 'Created; due at once.',
      schema: pullIntegrationViewSchema,
      example: { ...pullIntegrationExample, lastRun: null, nextRunAt: pullIntegrationExample.createdAt },
    },
  },
  errors: ['FEATURE_NOT_ENABLED', 'NOT_FOUND', 'KPI_ARCHIVED', 'PULL_INTEGRATION_LIMIT_REACHED'],
  core: async ({ body, user, audit }) => {
    const created = await createIntegration(
      pullDeps,
      { ...body, tenantId: user.tenantId, createdBy: { type: 'user', userId: user.userId } },
      audit,
    );
    return reply(201, integrationView(created, user.role));
  },
});

/**
 * The bindings' KPIs (BatchGet), the integration (Put); the credentials sealed with the secrets
 * key.
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['KPI#', 'TENANT#'],
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#', 'TENANT#'],
    UpdateItem: ['TENANT#'],
  },
  secrets: ['secretsKey'],
});

export const handler = jwtEndpoint(route);
