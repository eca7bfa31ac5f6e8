import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { strategicCycleSchema } from '../lib/domain/strategic-cycle';
import { AppError } from '../lib/errors';
import { defineRoute, reply } from '../lib/http/route';
import { cycleIdParams } from '../lib/http/schemas';
import { cycleWithStatusCounts } from '../lib/kpis/cycles';
import { CYCLE_ID } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const count = z.int().check(z.gte(0));
const cycleDetailSchema = z
  .object({
    ...strategicCycleSchema.shape,
    kpiCount: count.check(z.describe('Its live KPIs.')),
    statusCounts: z
      .object({
        on_track: count,
        at_risk: count,
        off_track: count,
        no_target: count,
        no_data: count,
        qualitative: count,
      })
      .check(
        z.describe(
          'How many of its live KPIs are on track, at risk, off track, have measurements without a target, have no measurement, or are qualitative (no status): the KPIs’ `status.value` (`GET /kpis/{kpiId}`).',
        ),
      ),
  })
  .check(z.meta({ id: 'StrategicCycleDetail', description: 'A cycle and where its KPIs stand.' }));

/** GET /strategic-cycles/{id}: the cycle and the status counts of its KPIs. */
export const route = defineRoute({
  operationId: 'getStrategicCycle',
  method: 'get',
  path: '/strategic-cycles/{id}',
  tag: 'Strategy',
  summary: 'Get a strategic cycle with its KPIs’ status counts',
  description:
    'Any role. The cycle, how many live KPIs it has, and how many of them stand where (each KPI’s status as `GET /kpis/{kpiId}` gives it). Its KPIs are `GET /kpis?cycleId=`. Another tenant’s cycle is 404.',
  auth: 'jwt',
  pathParams: cycleIdParams,
  responses: {
    200: {
      description: 'The cycle.',
      schema: cycleDetailSchema,
      example: {
        id: CYCLE_ID,
        name: 'Strategy 2026',
        startDate: '2026-01-01',
        endDate: '2026-12-31',
        status: 'active',
        createdAt: '2025-11-03T10:00:00.000Z',
        kpiCount: 6,
        statusCounts: { on_track: 3, at_risk: 1, off_track: 1, no_target: 0, no_data: 1, qualitative: 0 },
      },
    },
  },
  errors: ['NOT_FOUND'],
  core: async ({ params: { id }, user }) => {
    const cycle = await cycleWithStatusCounts(db, user.tenantId, id);
    if (!cycle) throw new AppError('NOT_FOUND', `Strategic cycle ${id} not found.`);
    return reply(200, cycle);
  },
});

/** The cycle (Get), its live KPIs (Query on the index) and their newest measurements (Query). */
export const deployment = defineDeployment({
  table: {
    GetItem: ['TENANT#'],
    Query: ['KPI#'],
  },
  indexes: ['gsi1'],
});

export const handler = jwtEndpoint(route);
