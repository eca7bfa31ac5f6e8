import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { measurementExample, pullDefinitionExample, pullRunExample } from '../lib/openapi/examples';
import { FETCH_TIMEOUT_MS, MAX_ANSWER_BYTES, TOKEN_TIMEOUT_MS } from '../lib/pull/fetch';
import { createPullIntegrationSchema } from '../lib/pull/inputs';
import { previewDefinition } from '../lib/pull/run';
import { previewSchema, previewView } from '../lib/pull/views';
import { pushedMeasurement } from '../lib/push/views';
import { jwtEndpoint, pullFetchDeps } from '../lib/runtime';

/** POST /integrations/pull/preview (ADMIN): a definition fetched and extracted before it is saved. */
export const route = defineRoute({
  operationId: 'previewPullDefinition',
  method: 'post',
  path: '/integrations/pull/preview',
  tag: 'Pull',
  summary: 'Preview an unsaved pull integration',
  description: `ADMIN; plan feature \`kpi_api_integration\`. Takes the body of a creation and answers what a preview of the saved integration would: the source’s HTTP status, the duration, its JSON answer (to pick the paths from), each binding’s extracted values or why it failed, and the measurements a run would write. The definition is checked as a creation checks it (400 naming the field), and fetched through the same egress guard and limits as a run (\`https://\`, no private, loopback or link-local address at connect time, no redirects, at most ${MAX_ANSWER_BYTES} bytes, ${(FETCH_TIMEOUT_MS + TOKEN_TIMEOUT_MS) / 1000} s). The credentials in \`auth\` are used for this fetch only: nothing is stored, no answer contains them, and the answer shown has them replaced by \`"[redacted]"\` wherever the source echoed them. A binding whose KPI is not the organization’s, of its type, says so in its \`problem\`.`,
  auth: 'jwt',
  roles: ['ADMIN'],
  body: {
    schema: createPullIntegrationSchema,
    examples: {
      bearer: {
        summary: 'A billing API’s MRR, with a bearer token, before it is saved',
        value: pullDefinitionExample,
      },
    },
  },
  responses: {
    200: {
      description: 'What a run of this definition would do now; nothing stored.',
      schema: previewSchema,
      example: {
        httpStatus: 200,
        durationMs: 398,
        errorClass: null,
        error: null,
        answer: {
          data: { mrr: { amount: 248_500, target: 260_000, currency: 'EUR' } },
          requestedWith: 'Bearer [redacted]',
        },
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
  errors: ['FEATURE_NOT_ENABLED'],
  core: async ({ body, user }) =>
    reply(200, previewView(await previewDefinition(pullFetchDeps, user.tenantId, body))),
});

/**
 * The tenant (Get) and the bindings' KPIs and existing records (BatchGet); stores nothing and opens
 * no sealed credentials (those of the body are used as sent).
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['KPI#', 'TENANT#'],
    GetItem: ['TENANT#'],
  },
  tenantUrls: {
    reservedConcurrency: 10,
  },
  timeout: 25,
});

export const handler = jwtEndpoint(route);
