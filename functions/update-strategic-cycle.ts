import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { strategicCycleSchema } from '../lib/domain/strategic-cycle';
import { defineRoute, reply } from '../lib/http/route';
import { cycleIdParams } from '../lib/http/schemas';
import { cycleInputFields } from '../lib/kpis/cycle-inputs';
import { updateCycle } from '../lib/kpis/cycles';
import { CYCLE_ID } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const { name, startDate, endDate, description, status } = cycleInputFields;

const updateCycleRequestSchema = z
  .strictObject({
    name: z.optional(name),
    startDate: z.optional(startDate),
    endDate: z.optional(endDate),
    description: z.optional(z.nullable(description).check(z.describe('`null` clears it.'))),
    status: z.optional(status),
  })
  .check(
    z.refine((body) => Object.values(body).some((value) => value !== undefined), {
      message: 'send at least one of name, startDate, endDate, description, status',
    }),
    z.meta({
      id: 'UpdateStrategicCycleRequest',
      description: 'The cycle’s fields to change; fields not sent stay as they are.',
    }),
  );

/** PATCH /strategic-cycles/{id} (ADMIN, EDITOR). */
export const route = defineRoute({
  operationId: 'updateStrategicCycle',
  method: 'patch',
  path: '/strategic-cycles/{id}',
  tag: 'Strategy',
  summary: 'Change a strategic cycle',
  description:
    'ADMIN or EDITOR. Any of `name`, `startDate`, `endDate`, `description` (`null` clears it) and `status` (`planned`, `active` or `closed`). Dates that end up out of order are 400 naming `endDate`. Another tenant’s cycle is 404.',
  auth: 'jwt',
  roles: ['ADMIN', 'EDITOR'],
  pathParams: cycleIdParams,
  body: {
    schema: updateCycleRequestSchema,
    examples: {
      activate: { summary: 'Start the cycle', value: { status: 'active' } },
      extend: { summary: 'Extend it by a quarter', value: { endDate: '2028-03-31' } },
    },
  },
  responses: {
    200: {
      description: 'The cycle as it is now.',
      schema: strategicCycleSchema,
      example: {
        id: CYCLE_ID,
        name: 'Strategy 2027',
        startDate: '2027-01-01',
        endDate: '2027-12-31',
        status: 'active',
        createdAt: '2026-11-03T10:00:00.000Z',
      },
    },
  },
  errors: ['NOT_FOUND'],
  core: async ({ params: { id }, body, user, audit }) =>
    reply(200, await updateCycle(db, user.tenantId, id, body, audit)),
});

/** The cycle (Get, strongly consistent), then the cycle and its audit event, in one transaction. */
export const deployment = defineDeployment({
  table: {
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#'],
    UpdateItem: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
