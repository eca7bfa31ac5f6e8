import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { checkHealth, publicEndpoint } from '../lib/runtime';

const healthSchema = z
  .object({ status: z.literal('ok').check(z.describe('Always `ok` in a 200.')) })
  .check(z.meta({ id: 'Health', description: 'The service and its table answer.' }));

/**
 * GET /health, without authentication, for uptime monitors: 200 when the function and its DynamoDB
 * table answer, else 503 `service-unavailable` (lib/health.ts).
 */
export const route = defineRoute({
  operationId: 'getHealth',
  method: 'get',
  path: '/health',
  tag: 'Service',
  summary: 'Health check for uptime monitors',
  description:
    'No authentication. 200 means API Gateway, the function and the DynamoDB table answer: it reads one item (eventually consistent, 0.5 read units) at most once per 10 seconds per function instance, so a monitor calling every minute costs next to nothing. 503 `service-unavailable` otherwise. It reveals no version, table or error text.',
  auth: 'none',
  responses: { 200: { description: 'Healthy.', schema: healthSchema, example: { status: 'ok' } } },
  errors: [],
  core: async () => {
    await checkHealth();
    return reply(200, { status: 'ok' as const });
  },
});

/**
 * One eventually consistent read of the health probe item (lib/db/health.ts); no JWT key.
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['HEALTH'],
  },
});

export const handler = publicEndpoint(route);
