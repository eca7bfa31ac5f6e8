import { listStrategicCycles } from '../lib/db/strategic-cycles';
import { defineDeployment } from '../lib/deployment';
import { strategicCycleSchema } from '../lib/domain/strategic-cycle';
import { defineRoute, reply } from '../lib/http/route';
import { namedPageOf, PAGE_NOTE, pageQuerySchema } from '../lib/http/schemas';
import { db, jwtEndpoint } from '../lib/runtime';

/** GET /strategic-cycles (spec 4, 5.1): the caller's tenant's cycles. */
export const route = defineRoute({
  operationId: 'listStrategicCycles',
  method: 'get',
  path: '/strategic-cycles',
  tag: 'Strategy',
  summary: 'List strategic cycles',
  description: `The caller’s tenant’s cycles, oldest first. ${PAGE_NOTE}`,
  auth: 'jwt',
  query: pageQuerySchema,
  responses: {
    200: {
      description: 'One page of cycles.',
      schema: namedPageOf(strategicCycleSchema, {
        id: 'StrategicCyclePage',
        description: 'One page, oldest first.',
      }),
      example: {
        items: [
          {
            id: '01936e00-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
            name: 'Strategy 2026',
            startDate: '2026-01-01',
            endDate: '2026-12-31',
            status: 'active',
            createdAt: '2025-11-03T10:00:00.000Z',
          },
        ],
      },
    },
  },
  errors: [],
  core: async ({ query, user }) => reply(200, await listStrategicCycles(db, user.tenantId, query)),
});

/**
 * The tenant's cycles (Query in the tenant's partition).
 */
export const deployment = defineDeployment({
  table: {
    Query: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
