import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { pullIntegrationIdParams } from '../lib/http/schemas';
import { measurementExample, pullRunExample } from '../lib/openapi/examples';
import { FETCH_TIMEOUT_MS, TOKEN_TIMEOUT_MS } from '../lib/pull/fetch';
import { previewIntegration } from '../lib/pull/run';
import { previewSchema, previewView } from '../lib/pull/views';
import { pushedMeasurement } from '../lib/push/views';
import { jwtEndpoint, pullFetchDeps } from '../lib/runtime';

/** POST /integrations/pull/{id}/preview (ADMIN): fetch and extract now, store nothing. */
export const route = defineRoute({
  operationId: 'previewPullIntegration',
  method: 'post',
  path: '/integrations/pull/{id}/preview',
  tag: 'Pull',
  summary: 'Preview a pull integration',
  description: `ADMIN; plan feature \`kpi_api_integration\`. Fetches the source now and answers its HTTP status, the duration, its JSON answer (cut to its limits, credentials redacted, as \`POST /integrations/pull/preview\` shows it), each binding’s extracted values or why it failed (the path matched nothing, not a number, not storable, no such KPI), and the measurements a run would write. Stores nothing and changes nothing about the schedule. Waits at most ${(FETCH_TIMEOUT_MS + TOKEN_TIMEOUT_MS) / 1000} s for the source (and its token endpoint). No body.`,
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: pullIntegrationIdParams,
  responses: {
    200: {
      description: 'What a run would do now.',
      schema: previewSchema,
      example: {
        httpStatus: 200,
        durationMs: 398,
        errorClass: null,
        error: null,
        answer: { data: { mrr: { amount: 248_500, target: 260_000, currency: 'EUR' } } },
        answerTruncated: false,
        bindings: pullRunExample.bindings.map(({ result: _result, ...binding }) => binding),
        measurements: [
          {
            status: 'updated',
            measurement: {
              ...pushedMeasurement({
                ...measurementExample,
                receivedAt: null,
                apiKeyId: null,
                apiKeyPrefix: null,
                integrationId: null,
                integrationName: null,
              }),
              actual: 248_500,
              target: 260_000,
            },
          },
        ],
      },
    },
  },
  errors: ['FEATURE_NOT_ENABLED', 'NOT_FOUND'],
  core: async ({ params: { id }, user }) =>
    reply(200, previewView(await previewIntegration(pullFetchDeps, user.tenantId, id))),
});

/**
 * The integration (Get), the KPIs and existing records (BatchGet); stores nothing.
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['KPI#', 'TENANT#'],
    GetItem: ['TENANT#'],
  },
  secrets: ['secretsKey'],
  tenantUrls: {
    reservedConcurrency: 10,
  },
  timeout: 25,
});

export const handler = jwtEndpoint(route);
