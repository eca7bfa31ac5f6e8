import * as z from 'zod/mini';
import { getKpiWithMeasurements } from '../lib/db/kpis';
import { listRecentMeasurements } from '../lib/db/measurements';
import { defineDeployment } from '../lib/deployment';
import { kpiTargetList } from '../lib/domain/kpi';
import { measurementSchema } from '../lib/domain/measurement';
import { AppError } from '../lib/errors';
import { defineRoute, reply } from '../lib/http/route';
import { kpiIdParams, PAGE_NOTE, pageQuerySchema } from '../lib/http/schemas';
import { RECENT_MEASUREMENTS } from '../lib/kpis/activity';
import { changeSchema, kpiChange } from '../lib/kpis/change';
import { statusFrom } from '../lib/kpis/overview';
import { kpiArrivals, kpiArrivalsShape } from '../lib/kpis/quiet';
import { kpiStatusSchema } from '../lib/kpis/status';
import { kpiView, kpiViewSchema } from '../lib/kpis/views';
import {
  arrivalsExample,
  kpiExample,
  kpiStatusExample,
  measurementRecordExample,
} from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

/** `?order=newest`: the newest periods first, so a page of 12 is the last 12 periods (the KPI page's chart). */
const kpiDetailQuerySchema = z.extend(pageQuerySchema, {
  order: z._default(
    z
      .enum(['oldest', 'newest'], { message: 'order must be "oldest" or "newest"' })
      .check(
        z.describe(
          '`oldest` (the default): measurements in period order; `newest`: the newest period first, and `nextCursor` leads to older ones.',
        ),
      ),
    'oldest',
  ),
});

/** The KPI and one page of its measurements, in period order. */
const kpiDetailSchema = z
  .extend(kpiViewSchema, {
    ...kpiArrivalsShape,
    measurements: z
      .array(measurementSchema)
      .check(z.describe('In period order, oldest first; newest first with `?order=newest`.')),
    nextCursor: z.optional(
      z
        .string()
        .check(z.describe('Pass as `cursor` for the next page of measurements; absent on the last page.')),
    ),
    status: kpiStatusSchema,
    change: changeSchema,
    targets: z
      .array(z.object({ periodStart: z.string(), periodEnd: z.string(), value: z.number() }))
      .check(
        z.describe(
          'The KPI’s own targets (`PUT /kpis/{kpiId}/targets`), in period order, also for periods with no measurement yet: a measurement without a pushed `target` is measured against its period’s.',
        ),
      ),
  })
  .check(z.meta({ id: 'KpiDetail', description: 'A KPI and one page of its measurements.' }));

/**
 * GET /kpis/{kpiId}: one KPI with its measurements in period order, each with when it arrived and the
 * key that pushed it (the KPI page's detail), and its status. One round trip. Another tenant's KPI is 404, like a missing one.
 */
export const route = defineRoute({
  operationId: 'getKpi',
  method: 'get',
  path: '/kpis/{kpiId}',
  tag: 'KPIs',
  summary: 'Get a KPI with its measurements',
  description: `The KPI and its measurements in period order, each with when it arrived (\`receivedAt\`) and the key or pull integration that wrote it, its status against its target, its \`change\` since the last period, when a measurement last arrived and whether the KPI is quiet. One round trip (the page, and the newest measurements for the status). ${PAGE_NOTE} The paging applies to \`measurements\`; the KPI and its status are in every page. \`?order=newest\` pages from the newest period back: \`?order=newest&limit=12\` is the last 12 periods, whatever the KPI holds.`,
  auth: 'jwt',
  pathParams: kpiIdParams,
  query: kpiDetailQuerySchema,
  responses: {
    200: {
      description: 'The KPI and one page of its measurements.',
      schema: kpiDetailSchema,
      example: {
        ...kpiExample,
        ...arrivalsExample,
        measurements: [measurementRecordExample],
        status: kpiStatusExample,
        change: { previous: 38, absolute: 2, relative: 0.0526 },
        targets: [{ periodStart: '2026-03-01', periodEnd: '2026-03-31', value: 45 }],
      },
    },
  },
  errors: ['NOT_FOUND'],
  core: async ({ params: { kpiId }, query: { order, ...page }, user }) => {
    // The newest measurements, for the status, are read with the page: one round trip.
    const [found, recent] = await Promise.all([
      getKpiWithMeasurements(db, user.tenantId, kpiId, page, order),
      listRecentMeasurements(db, kpiId, RECENT_MEASUREMENTS),
    ]);
    if (!found) throw new AppError('NOT_FOUND', `KPI ${kpiId} not found.`);
    const { items, nextCursor } = found.measurements;
    return reply(200, {
      ...kpiView(found.kpi),
      ...kpiArrivals(found.kpi, recent, Date.now()),
      measurements: items,
      ...(nextCursor ? { nextCursor } : {}),
      status: await statusFrom(db, found.kpi, recent),
      change: kpiChange(found.kpi.period, recent),
      targets: kpiTargetList(found.kpi),
    });
  },
});

/**
 * The KPI and its measurements in one Query on the table; a later page, or one newest first, also Gets the KPI.
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['KPI#'],
    Query: ['KPI#'],
  },
});

export const handler = jwtEndpoint(route);
