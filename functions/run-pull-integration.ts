import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { pullIntegrationIdParams } from '../lib/http/schemas';
import { pullRunExample } from '../lib/openapi/examples';
import { FETCH_TIMEOUT_MS, TOKEN_TIMEOUT_MS } from '../lib/pull/fetch';
import { runNow } from '../lib/pull/run';
import { pullRunViewSchema, runView } from '../lib/pull/views';
import { jwtEndpoint, pullRunDeps } from '../lib/runtime';

/** POST /integrations/pull/{id}/run (ADMIN): fetch and store now; a run like a scheduled one. */
export const route = defineRoute({
  operationId: 'runPullIntegration',
  method: 'post',
  path: '/integrations/pull/{id}/run',
  tag: 'Pull',
  summary: 'Run a pull integration now',
  description: `ADMIN; plan feature \`kpi_api_integration\`. Fetches and stores now and answers the run (it is in the run log). It counts as a run: failures count toward \`failing\` and \`disabled\`, and a disabled integration whose run stores is active again. Waits at most ${(FETCH_TIMEOUT_MS + TOKEN_TIMEOUT_MS) / 1000} s for the source. No body.`,
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: pullIntegrationIdParams,
  responses: {
    200: {
      description: 'The run, whatever its outcome.',
      schema: pullRunViewSchema,
      example: { ...pullRunExample, trigger: 'manual' },
    },
  },
  errors: ['FEATURE_NOT_ENABLED', 'NOT_FOUND'],
  core: async ({ params: { id }, user, audit }) => {
    const run = await runNow(pullRunDeps, user.tenantId, id, audit);
    return reply(200, runView(run));
  },
});

/**
 * As the worker: the run's reads and writes, and integration.disabled to the tenant's webhooks.
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['KPI#', 'TENANT#'],
    BatchWriteItem: ['KPI#'],
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#', 'PULL#'],
    UpdateItem: ['KPI#', 'PULL#', 'TENANT#'],
  },
  publishesWebhookEvents: true,
  secrets: ['secretsKey'],
  tenantUrls: {
    reservedConcurrency: 10,
  },
  timeout: 25,
});

export const handler = jwtEndpoint(route);
