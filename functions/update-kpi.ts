import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { kpiSchema } from '../lib/domain/kpi';
import { AppError } from '../lib/errors';
import { defineRoute, reply } from '../lib/http/route';
import { kpiIdParams } from '../lib/http/schemas';
import { updateKpi } from '../lib/kpis/settings';
import { kpiView, kpiViewSchema } from '../lib/kpis/views';
import { KPI_ID } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

/** What an ADMIN may change of a KPI: how its status is measured and its cadence. At least one field. */
const updateKpiRequestSchema = z
  .strictObject({
    direction: z.optional(kpiSchema.shape.direction),
    tolerance: z.optional(
      z
        .number('tolerance must be a number')
        .check(
          z.gte(0, 'tolerance must be at least 0'),
          z.lte(1, 'tolerance must be at most 1 (100 % of the target)'),
          z.describe('The share of the target within which a miss is at risk, 0 to 1.'),
        ),
    ),
    qualitative: z.optional(kpiSchema.shape.qualitative),
    cadence: z.optional(kpiSchema.shape.cadence),
    graceHours: z.optional(kpiSchema.shape.graceHours),
  })
  .check(
    z.refine((body) => Object.values(body).some((value) => value !== undefined), {
      message: 'send at least one of direction, tolerance, qualitative, cadence, graceHours',
    }),
    z.meta({
      id: 'UpdateKpiRequest',
      description:
        'How the KPI’s status is measured and how often measurements are expected; fields not sent stay as they are.',
    }),
  );

/** PATCH /kpis/{kpiId} (ADMIN): a KPI's direction, tolerance, whether it is qualitative, and its cadence. */
export const route = defineRoute({
  operationId: 'updateKpi',
  method: 'patch',
  path: '/kpis/{kpiId}',
  tag: 'KPIs',
  summary: 'Set how a KPI’s status is measured and how often it expects data',
  description:
    'ADMIN. `direction` (`higher_is_better` or `lower_is_better`), `tolerance` (the share of the target within which a miss is `at_risk` rather than `off_track`, 0 to 1), `qualitative` (no status at all), `cadence` (`daily`, `weekly`, `monthly` or `none`: how often measurements are expected) and `graceHours` (how late they may be, 0 to 720). A KPI with a cadence is quiet when nothing arrived for the cadence plus the grace hours, and its tenant’s webhooks get `kpi.quiet` once per quiet spell. Another tenant’s KPI is 404.',
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: kpiIdParams,
  body: {
    schema: updateKpiRequestSchema,
    examples: {
      lower: {
        summary: 'Lower is better, 5 % tolerance',
        value: { direction: 'lower_is_better', tolerance: 0.05 },
      },
      qualitative: { summary: 'A qualitative KPI', value: { qualitative: true } },
      cadence: {
        summary: 'Expected daily, 3 hours late at most',
        value: { cadence: 'daily', graceHours: 3 },
      },
    },
  },
  responses: {
    200: {
      description: 'The KPI as it is now.',
      schema: kpiViewSchema.check(z.meta({ id: 'Kpi', description: 'A KPI of the caller’s tenant.' })),
      example: {
        id: KPI_ID,
        type: 'BSC_KPI',
        name: 'Churned customers',
        createdAt: '2026-01-05T08:00:00.000Z',
        period: 'month',
        direction: 'lower_is_better',
        tolerance: 0.05,
        qualitative: false,
        cadence: 'none',
        graceHours: 1,
      },
    },
  },
  errors: ['NOT_FOUND'],
  core: async ({ params: { kpiId }, body, user, audit }) => {
    const kpi = await updateKpi(db, user.tenantId, kpiId, body, audit);
    if (!kpi) throw new AppError('NOT_FOUND', `KPI ${kpiId} not found.`);
    return reply(200, kpiView(kpi));
  },
});

/**
 * The KPI as it is (Get, strongly consistent), then its settings (Update, conditioned on its
 * tenant and on the settings read) with its audit event, in one transaction.
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['KPI#'],
    PutItem: ['AUDIT#'],
    UpdateItem: ['KPI#'],
  },
});

export const handler = jwtEndpoint(route);
