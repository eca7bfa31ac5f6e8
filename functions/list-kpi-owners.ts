import { listActivePeople } from '../lib/auth/people';
import { kpiOwnerSchema, kpiOwnerView } from '../lib/auth/people-views';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { namedPageOf, PAGE_NOTE, pageQuerySchema } from '../lib/http/schemas';
import { personExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

/** GET /kpi-owners (ADMIN, EDITOR): whom a KPI may be given to, for those who manage KPIs. */
export const route = defineRoute({
  operationId: 'listKpiOwners',
  method: 'get',
  path: '/kpi-owners',
  tag: 'KPIs',
  summary: 'List possible KPI owners',
  description: `ADMIN and EDITOR. The tenant’s active users, oldest first, as a KPI’s \`ownerId\` takes them: id, name and e-mail, nothing of their account (\`GET /users\` is for ADMINs). Invited and deactivated users are left out after the page is read, so a page may hold fewer than \`limit\` and still have a \`nextCursor\`: follow it until it is absent. ${PAGE_NOTE}`,
  auth: 'jwt',
  roles: ['ADMIN', 'EDITOR'],
  query: pageQuerySchema,
  responses: {
    200: {
      description: 'One page of active users.',
      schema: namedPageOf(kpiOwnerSchema, { id: 'KpiOwnerPage', description: 'One page, oldest first.' }),
      example: {
        items: [
          { id: personExample.id, name: personExample.name, email: personExample.email },
          { id: '0193f5a2-0000-7000-8000-000000000002', name: null, email: 'li@acme.example' },
        ],
      },
    },
  },
  errors: [],
  core: async ({ query, user }) => {
    const page = await listActivePeople(db, user.tenantId, query);
    return reply(200, { ...page, items: page.items.map(kpiOwnerView) });
  },
});

/** The tenant's users (Query of its partition). */
export const deployment = defineDeployment({ table: { Query: ['TENANT#'] } });

export const handler = jwtEndpoint(route);
