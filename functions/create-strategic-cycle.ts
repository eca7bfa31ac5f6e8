import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { strategicCycleSchema } from '../lib/domain/strategic-cycle';
import { defineRoute, reply } from '../lib/http/route';
import { cycleInputFields } from '../lib/kpis/cycle-inputs';
import { createCycle } from '../lib/kpis/cycles';
import { CYCLE_ID } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const { name, startDate, endDate, description } = cycleInputFields;

const createCycleRequestSchema = z
  .strictObject({ name, startDate, endDate, description: z.optional(description) })
  .check(z.meta({ id: 'CreateStrategicCycleRequest', description: 'A new strategic cycle.' }));

/** POST /strategic-cycles (ADMIN, EDITOR): a cycle of the caller's tenant, planned. */
export const route = defineRoute({
  operationId: 'createStrategicCycle',
  method: 'post',
  path: '/strategic-cycles',
  tag: 'Strategy',
  summary: 'Create a strategic cycle',
  description:
    'ADMIN or EDITOR. `name`, `startDate` and `endDate` (calendar dates; a cycle may start and end on one day) are required, `description` optional. A start after the end is 400 naming `endDate`. A new cycle is `planned`.',
  auth: 'jwt',
  roles: ['ADMIN', 'EDITOR'],
  body: {
    schema: createCycleRequestSchema,
    examples: {
      year: {
        summary: 'A year',
        value: {
          name: 'Strategy 2027',
          startDate: '2027-01-01',
          endDate: '2027-12-31',
          description: 'Grow in the Nordics',
        },
      },
    },
  },
  responses: {
    201: {
      description: 'Created.',
      schema: strategicCycleSchema,
      example: {
        id: CYCLE_ID,
        name: 'Strategy 2027',
        startDate: '2027-01-01',
        endDate: '2027-12-31',
        description: 'Grow in the Nordics',
        status: 'planned',
        createdAt: '2026-11-03T10:00:00.000Z',
      },
    },
  },
  errors: [],
  core: async ({ body, user, audit }) => reply(201, await createCycle(db, user.tenantId, body, audit)),
});

/** The cycle, its audit event and the tenant's existence, in one transaction. */
export const deployment = defineDeployment({
  table: {
    PutItem: ['AUDIT#', 'TENANT#'],
    ConditionCheckItem: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
