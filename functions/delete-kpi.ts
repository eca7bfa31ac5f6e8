import { defineDeployment } from '../lib/deployment';
import { AppError } from '../lib/errors';
import { defineRoute, reply } from '../lib/http/route';
import { kpiIdParams } from '../lib/http/schemas';
import { updateKpi } from '../lib/kpis/settings';
import { kpiView, kpiViewSchema } from '../lib/kpis/views';
import { kpiExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

/** DELETE /kpis/{kpiId} (ADMIN, EDITOR): archives the KPI; it and its measurements stay readable. */
export const route = defineRoute({
  operationId: 'archiveKpi',
  method: 'delete',
  path: '/kpis/{kpiId}',
  tag: 'KPIs',
  summary: 'Archive a KPI',
  description:
    'ADMIN or EDITOR. The KPI and its measurements stay readable (`GET /kpis/{kpiId}`, its measurements), and it leaves `GET /kpis` (`?archived=true` lists the archived ones) and the plan’s count of live KPIs. Pushes and pulls to it are refused with 409 `kpi-archived` naming it. Archiving it again answers the same; `PATCH {"archived": false}` restores it.',
  auth: 'jwt',
  roles: ['ADMIN', 'EDITOR'],
  pathParams: kpiIdParams,
  responses: {
    200: {
      description: 'The KPI as it is now, with `archivedAt`.',
      schema: kpiViewSchema,
      example: { ...kpiExample, archivedAt: '2026-11-02T09:30:00.000Z' },
    },
  },
  errors: ['NOT_FOUND'],
  core: async ({ params: { kpiId }, user, audit }) => {
    const kpi = await updateKpi(db, user.tenantId, kpiId, { archived: true }, audit);
    if (!kpi) throw new AppError('NOT_FOUND', `KPI ${kpiId} not found.`);
    return reply(200, kpiView(kpi));
  },
});

/**
 * The KPI as it is (Get, strongly consistent), then the KPI (Update, conditioned on its tenant and on
 * the version read), the tenant's KPI count and the audit event, in one transaction.
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['KPI#'],
    PutItem: ['AUDIT#'],
    UpdateItem: ['KPI#', 'TENANT#'],
    ConditionCheckItem: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
