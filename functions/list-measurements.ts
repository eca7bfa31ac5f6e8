import { getKpiOfTenant } from '../lib/db/kpis';
import { listMeasurements } from '../lib/db/measurements';
import { defineDeployment } from '../lib/deployment';
import { measurementSchema } from '../lib/domain/measurement';
import { AppError } from '../lib/errors';
import { defineRoute, reply } from '../lib/http/route';
import { kpiIdParams, namedPageOf, PAGE_NOTE, pageQuerySchema } from '../lib/http/schemas';
import { measurementRecordExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

/** GET /kpis/{kpiId}/measurements: what push stored, ordered by period. Another tenant's KPI is 404. */
export const route = defineRoute({
  operationId: 'listMeasurements',
  method: 'get',
  path: '/kpis/{kpiId}/measurements',
  tag: 'KPIs',
  summary: 'List a KPI’s measurements',
  description: `What push stored for one KPI, ordered by period, each with when it arrived and the key that pushed it. ${PAGE_NOTE}`,
  auth: 'jwt',
  pathParams: kpiIdParams,
  query: pageQuerySchema,
  responses: {
    200: {
      description: 'One page of measurements.',
      schema: namedPageOf(measurementSchema, {
        id: 'MeasurementPage',
        description: 'One page, ordered by period.',
      }),
      example: { items: [measurementRecordExample] },
    },
  },
  errors: ['NOT_FOUND'],
  core: async ({ params: { kpiId }, query, user }) => {
    const kpi = await getKpiOfTenant(db, user.tenantId, kpiId);
    if (!kpi) throw new AppError('NOT_FOUND', `KPI ${kpiId} not found.`);
    return reply(200, await listMeasurements(db, kpi.id, query));
  },
});

/**
 * The KPI (Get), its measurements (Query on the table).
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['KPI#'],
    Query: ['KPI#'],
  },
});

export const handler = jwtEndpoint(route);
