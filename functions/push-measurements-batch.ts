import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { defineKeyRoute, reply } from '../lib/http/route';
import { batchExample, KPI_ID, measurementExample, OKR_ID } from '../lib/openapi/examples';
import { batchSchema, pushQuerySchema } from '../lib/push/measurement-schema';
import { PUSH_ERRORS, PUSH_ORDER } from '../lib/push/order';
import { pushMeasurements } from '../lib/push/push-service';
import {
  plannedMeasurementSchema,
  pushedItems,
  pushedMeasurementSchema,
  pushStatusSchema,
} from '../lib/push/views';
import { keyEndpoint, pushDeps } from '../lib/runtime';

const index = z.int();

/** One item per request element, in request order. */
const batchResultSchema = z
  .object({
    count: z.int().check(z.describe('Number of measurements stored.')),
    items: z.array(z.object({ index, status: pushStatusSchema, measurement: pushedMeasurementSchema })),
  })
  .check(z.meta({ id: 'BatchResult', description: 'One item per request element, in request order.' }));

const dryRunBatchSchema = z
  .object({
    dryRun: z.literal(true).check(z.describe('Always `true`: tells this answer from a stored batch.')),
    count: z.int().check(z.describe('Number of measurements the push would store.')),
    items: z.array(z.object({ index, status: pushStatusSchema, measurement: plannedMeasurementSchema })),
  })
  .check(
    z.meta({
      id: 'DryRunBatch',
      description:
        'A dry run of a batch (`?dryRun=true`): one item per request element, in request order; nothing was written.',
    }),
  );

/** POST /integrations/push/measurements/batch (spec 4, 8): 1..50 measurements, all or nothing. */
export const route = defineKeyRoute({
  operationId: 'pushMeasurementsBatch',
  method: 'post',
  path: '/integrations/push/measurements/batch',
  tag: 'Push',
  summary: 'Push up to 50 measurements',
  description: `All or nothing; a batch counts as one request against the rate limit.\n\n${PUSH_ORDER}`,
  auth: 'apiKey',
  rateLimited: true,
  query: pushQuerySchema,
  body: {
    schema: batchSchema,
    examples: {
      mixed: {
        summary: 'Two KPIs of different types',
        value: {
          measurements: [
            {
              kpiId: KPI_ID,
              kpiType: 'BSC_KPI',
              actual: 40,
              target: 45,
              periodStart: '2026-09-01',
              periodEnd: '2026-09-30',
            },
            { kpiId: OKR_ID, kpiType: 'OKR_KEY_RESULT', actual: 0.7, forecast: 0.9 },
          ],
        },
      },
    },
  },
  responses: {
    200: {
      description:
        'Every measurement stored; or, with `?dryRun=true`, what the push would do, with nothing written.',
      schema: [batchResultSchema, dryRunBatchSchema],
      examples: {
        stored: { summary: 'Stored', value: batchExample },
        dryRun: {
          summary: 'Dry run',
          value: {
            dryRun: true,
            count: 2,
            items: [
              { index: 0, status: 'created', measurement: { ...measurementExample, id: null } },
              batchExample.items[1],
            ],
          },
        },
      },
    },
  },
  errors: PUSH_ERRORS,
  core: async ({ read, ...request }) => {
    const result = await pushMeasurements(pushDeps, {
      ...request,
      input: read().then(({ query, body }) => ({
        measurements: body.measurements,
        dryRun: query.dryRun,
        pathOf: (index: number) => `measurements[${index}]`,
      })),
    });
    if (result.dryRun) {
      const items = pushedItems(result.items);
      return reply(200, { dryRun: true as const, count: items.length, items }, result.headers);
    }
    const items = pushedItems(result.items);
    return reply(200, { count: items.length, items }, result.headers);
  },
});

/**
 * Reads the key, the KPIs and their measurements (BatchGet) and the tenant (Get); writes only the
 * key's usage item (Update) and the measurements (Update or BatchWrite). No JWT key, and no CORS:
 * API keys do not belong in browsers.
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['APIKEY#', 'KPI#'],
    BatchWriteItem: ['KPI#'],
    GetItem: ['TENANT#'],
    UpdateItem: ['APIKEY#', 'KPI#'],
  },
});

export const handler = keyEndpoint(route);
