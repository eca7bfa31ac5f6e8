import { listPeople } from '../lib/auth/people';
import { personSchema, personView } from '../lib/auth/people-views';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { namedPageOf, PAGE_NOTE, pageQuerySchema } from '../lib/http/schemas';
import { personExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

/** GET /users (ADMIN): the people of the caller's tenant. */
export const route = defineRoute({
  operationId: 'listUsers',
  method: 'get',
  path: '/users',
  tag: 'People',
  summary: 'List users',
  description: `ADMIN only. The tenant’s users, oldest first, with their role, status (\`invited\`, \`active\`, \`deactivated\`), last sign-in and who invited them; never a password or a link. ${PAGE_NOTE}`,
  auth: 'jwt',
  roles: ['ADMIN'],
  query: pageQuerySchema,
  responses: {
    200: {
      description: 'One page of users.',
      schema: namedPageOf(personSchema, { id: 'PersonPage', description: 'One page, oldest first.' }),
      example: {
        items: [
          personExample,
          {
            ...personExample,
            id: '0193f5a2-0000-7000-8000-000000000001',
            email: 'bo@acme.example',
            name: null,
            role: 'VIEWER',
            status: 'invited',
            lastSignInAt: null,
          },
        ],
      },
    },
  },
  errors: [],
  core: async ({ query, user }) => {
    const page = await listPeople(db, user.tenantId, query);
    return reply(200, { ...page, items: page.items.map(personView) });
  },
});

/** The tenant's users (Query of its partition). */
export const deployment = defineDeployment({ table: { Query: ['TENANT#'] } });

export const handler = jwtEndpoint(route);
