import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { pullIntegrationIdParams } from '../lib/http/schemas';
import { removeIntegration } from '../lib/pull/service';
import { jwtEndpoint, pullDeps } from '../lib/runtime';

/** DELETE /integrations/pull/{id} (ADMIN): no more runs; its measurements stay. */
export const route = defineRoute({
  operationId: 'deletePullIntegration',
  method: 'delete',
  path: '/integrations/pull/{id}',
  tag: 'Pull',
  summary: 'Delete a pull integration',
  description:
    'ADMIN; plan feature `kpi_api_integration`. It is not run again; the measurements it stored stay, and its run log goes within 90 days. A deleted (or unknown) integration is 404.',
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: pullIntegrationIdParams,
  responses: { 204: { description: 'Deleted.' } },
  errors: ['FEATURE_NOT_ENABLED', 'NOT_FOUND'],
  core: async ({ params: { id }, user, audit }) => {
    await removeIntegration(pullDeps, user.tenantId, id, audit);
    return reply(204, undefined);
  },
});

/**
 * The integration (Delete, conditioned on its existence).
 */
export const deployment = defineDeployment({
  table: {
    DeleteItem: ['TENANT#'],
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#'],
    UpdateItem: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
