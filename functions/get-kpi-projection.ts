import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { AppError } from '../lib/errors';
import { defineRoute, reply } from '../lib/http/route';
import { kpiIdParams } from '../lib/http/schemas';
import {
  MAX_PROJECTION_PERIODS,
  PROJECTION_HISTORY,
  projectionSchema,
  readKpiProjection,
} from '../lib/kpis/projection';
import { kpiExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const projectionQuerySchema = z.strictObject({
  periods: z.optional(
    z.coerce
      .number()
      .check(
        z.int('periods must be an integer'),
        z.gte(1, 'periods must be at least 1'),
        z.lte(MAX_PROJECTION_PERIODS, `periods must be at most ${MAX_PROJECTION_PERIODS}`),
      )
      .check(
        z.describe(
          `How many periods to project, 1 to ${MAX_PROJECTION_PERIODS}; by default up to the end of the strategic cycle that holds the next period, else of its calendar year.`,
        ),
      ),
  ),
});

/**
 * GET /kpis/{kpiId}/projection: the KPI's next periods with a p10–p90 band, the median and, against
 * its target, the probability of meeting it; computed on request from its newest periods, never on
 * the push path.
 */
export const route = defineRoute({
  operationId: 'getKpiProjection',
  method: 'get',
  path: '/kpis/{kpiId}/projection',
  tag: 'KPIs',
  summary: 'Project a KPI’s next periods',
  description: [
    `Where the KPI is heading: for each of its next periods (from the one after its newest measurement, up to the end of the strategic cycle that holds it, else of its calendar year, or \`?periods=\`, at most ${MAX_PROJECTION_PERIODS}) the 10th, 50th and 90th percentiles of its value and, when the KPI has a target (that of its newest measurement with one), the probability of meeting it in the KPI’s direction.`,
    '',
    `The model is chosen per KPI by a backtest on its own history (\`method\`, \`backtest\`); it is based on the newest run of consecutive periods among the ${PROJECTION_HISTORY} newest (\`basedOn\`). With fewer than 6 such periods, or for a qualitative KPI, the answer has no periods and says why in \`reason\`. The same history always gives the same answer. One round trip: the KPI, one Query of its measurements, one of the tenant’s cycles.`,
  ].join('\n'),
  auth: 'jwt',
  pathParams: kpiIdParams,
  query: projectionQuerySchema,
  responses: {
    200: {
      description: 'The projection, or why there is none.',
      schema: projectionSchema,
      example: {
        kpiId: kpiExample.id,
        period: 'month',
        method: 'ets',
        basedOn: { count: 36, lastPeriod: '2026-09-01' },
        backtest: { mase1: 0.62, mase3: 0.71, coverage80: 0.83, periods: 12 },
        horizon: { until: 'cycle', cycleId: '01936e00-1a2b-7c3d-8e4f-5a6b7c8d9e0f' },
        periods: [
          {
            periodStart: '2026-10-01',
            periodEnd: '2026-10-31',
            p10: 38.2,
            p50: 41.5,
            p90: 44.9,
            target: 45,
            probability: 0.11,
          },
          {
            periodStart: '2026-11-01',
            periodEnd: '2026-11-30',
            p10: 38.9,
            p50: 43.1,
            p90: 47.4,
            target: 45,
            probability: 0.31,
          },
          {
            periodStart: '2026-12-01',
            periodEnd: '2026-12-31',
            p10: 39.6,
            p50: 44.6,
            p90: 49.7,
            target: 45,
            probability: 0.46,
          },
        ],
      },
    },
  },
  errors: ['NOT_FOUND'],
  core: async ({ params: { kpiId }, query, user }) => {
    const projection = await readKpiProjection(db, user.tenantId, kpiId, query.periods);
    if (!projection) throw new AppError('NOT_FOUND', `KPI ${kpiId} not found.`);
    return reply(200, projection);
  },
});

/** The KPI (GetItem), its newest measurements (Query of KPI#), the tenant's cycles (Query of TENANT#). */
export const deployment = defineDeployment({
  table: {
    GetItem: ['KPI#'],
    Query: ['KPI#', 'TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
