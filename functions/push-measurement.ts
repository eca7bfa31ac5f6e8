import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { defineKeyRoute, reply } from '../lib/http/route';
import { KPI_ID, measurementExample } from '../lib/openapi/examples';
import { measurementInputSchema, pushQuerySchema } from '../lib/push/measurement-schema';
import { PUSH_ERRORS, PUSH_ORDER } from '../lib/push/order';
import { pushMeasurements } from '../lib/push/push-service';
import {
  plannedMeasurementSchema,
  pushedMeasurement,
  pushedMeasurementSchema,
  pushStatusSchema,
} from '../lib/push/views';
import { keyEndpoint, pushDeps } from '../lib/runtime';

/** `?dryRun=true`: the record a push would store, nothing written. */
const dryRunMeasurementSchema = z
  .object({
    dryRun: z.literal(true).check(z.describe('Always `true`: tells this answer from a stored measurement.')),
    status: pushStatusSchema.check(z.describe('What a push would do: `created` or `updated`.')),
    measurement: plannedMeasurementSchema,
  })
  .check(
    z.meta({
      id: 'DryRunMeasurement',
      description: 'A dry run of one measurement (`?dryRun=true`): nothing was written.',
    }),
  );

/** POST /integrations/push/measurement (spec 2.5, 5.2): 201 when created, 200 when it replaced. */
export const route = defineKeyRoute({
  operationId: 'pushMeasurement',
  method: 'post',
  path: '/integrations/push/measurement',
  tag: 'Push',
  summary: 'Push one measurement',
  description: `201 when the (KPI, period) was new, 200 when it replaced a stored measurement.\n\n${PUSH_ORDER}`,
  auth: 'apiKey',
  rateLimited: true,
  query: pushQuerySchema,
  body: {
    schema: measurementInputSchema,
    examples: {
      monthToDate: {
        summary: 'Month-to-date value (no period: the current month)',
        value: { kpiId: KPI_ID, kpiType: 'BSC_KPI', actual: 42.5 },
      },
      withPeriod: {
        summary: 'A full record for September',
        value: {
          kpiId: KPI_ID,
          kpiType: 'BSC_KPI',
          actual: 40,
          target: 45,
          forecast: 44,
          periodStart: '2026-09-01',
          periodEnd: '2026-09-30',
        },
      },
    },
  },
  responses: {
    201: { description: 'Created.', schema: pushedMeasurementSchema, example: measurementExample },
    200: {
      description:
        'Replaced the measurement of the same KPI and period (same `id` and `createdAt`); or, with `?dryRun=true`, what a push would do, with nothing written.',
      schema: [pushedMeasurementSchema, dryRunMeasurementSchema],
      examples: {
        replaced: {
          summary: 'Replaced',
          value: { ...measurementExample, actual: 41, updatedAt: '2026-09-02T06:00:00.377Z' },
        },
        dryRun: {
          summary: 'Dry run of a new measurement',
          value: { dryRun: true, status: 'created', measurement: { ...measurementExample, id: null } },
        },
      },
    },
  },
  errors: PUSH_ERRORS,
  core: async ({ read, ...request }) => {
    const result = await pushMeasurements(pushDeps, {
      ...request,
      input: read().then(({ query, body }) => ({ measurements: [body], dryRun: query.dryRun })),
    });
    if (result.dryRun) {
      const [{ status, measurement }] = result.items as [(typeof result.items)[number]];
      const planned = { dryRun: true as const, status, measurement: pushedMeasurement(measurement) };
      return reply(200, planned, result.headers);
    }
    const [{ status, measurement }] = result.items as [(typeof result.items)[number]];
    return reply(status === 'created' ? 201 : 200, pushedMeasurement(measurement), result.headers);
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
