import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { cycleIdParams } from '../lib/http/schemas';
import { deleteCycle } from '../lib/kpis/cycles';
import { db, jwtEndpoint } from '../lib/runtime';

/** DELETE /strategic-cycles/{id} (ADMIN, EDITOR): only a cycle without KPIs. */
export const route = defineRoute({
  operationId: 'deleteStrategicCycle',
  method: 'delete',
  path: '/strategic-cycles/{id}',
  tag: 'Strategy',
  summary: 'Delete a strategic cycle without KPIs',
  description:
    'ADMIN or EDITOR. Only a cycle that no KPI, live or archived, belongs to: otherwise 409 `cycle-has-kpis`, naming how many in `kpiCount` (move them with `PATCH /kpis/{kpiId}` `{"cycleId": …}` or `null`). Another tenant’s cycle is 404.',
  auth: 'jwt',
  roles: ['ADMIN', 'EDITOR'],
  pathParams: cycleIdParams,
  responses: { 204: { description: 'Deleted.' } },
  errors: ['NOT_FOUND', 'CYCLE_HAS_KPIS'],
  core: async ({ params: { id }, user, audit }) => {
    await deleteCycle(db, user.tenantId, id, audit);
    return reply(204, undefined);
  },
});

/** The cycle (Get, strongly consistent), then its deletion, conditioned on no KPI, and its audit event. */
export const deployment = defineDeployment({
  table: {
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#'],
    DeleteItem: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
