import * as z from 'zod/mini';
import { changePerson } from '../lib/auth/people';
import { personSchema, personView } from '../lib/auth/people-views';
import { defineDeployment } from '../lib/deployment';
import { ROLES } from '../lib/domain/user';
import { defineRoute, reply } from '../lib/http/route';
import { userIdParams } from '../lib/http/schemas';
import { personExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const updateUserRequestSchema = z
  .strictObject({
    role: z.optional(z.enum(ROLES).check(z.describe('The new role. Absent: unchanged.'))),
    active: z.optional(
      z.boolean().check(z.describe('`false` deactivates, `true` reactivates. Absent: unchanged.')),
    ),
  })
  .check(
    z.refine((body) => body.role !== undefined || body.active !== undefined, {
      message: 'send role, active or both',
    }),
    z.meta({
      id: 'UpdateUserRequest',
      description: 'The fields to change; those left out stay as they are.',
    }),
  );

/** PATCH /users/{id} (ADMIN): role, deactivation and reactivation. */
export const route = defineRoute({
  operationId: 'updateUser',
  method: 'patch',
  path: '/users/{id}',
  tag: 'People',
  summary: 'Change a user’s role, or deactivate or reactivate them',
  description: [
    'ADMIN only. A demotion or a deactivation ends every session of the user: their refresh tokens stop at once, their access tokens within the session cache’s bound (60 s at most). A deactivated user cannot sign in and their open link stops working; reactivation lets them sign in again with their password. A promotion keeps their sessions (the old token answers 401 until refreshed).',
    '',
    'The tenant keeps one active ADMIN at least: demoting or deactivating the last one is 409 `last-admin`, also when two ADMINs try it on each other at once. Reactivating takes a place on the plan again (409 `user-limit-reached` when none is free).',
  ].join('\n'),
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: userIdParams,
  body: {
    schema: updateUserRequestSchema,
    examples: {
      demote: { summary: 'Make them a viewer', value: { role: 'VIEWER' } },
      deactivate: { summary: 'Deactivate', value: { active: false } },
      reactivate: { summary: 'Reactivate', value: { active: true } },
    },
  },
  responses: {
    200: {
      description: 'Changed: the user as they are now.',
      schema: personSchema,
      example: { ...personExample, role: 'VIEWER' },
    },
  },
  errors: ['NOT_FOUND', 'LAST_ADMIN', 'USER_LIMIT_REACHED'],
  core: async ({ params: { id }, body, user, audit }) => {
    const changed = await changePerson(db, { tenantId: user.tenantId, userId: id, ...body }, audit);
    return reply(200, personView(changed));
  },
});

/**
 * The tenant and the user (Get), the tenant's users when an ADMIN is to stay one (Query); the change,
 * the check of the ADMIN who stays, the count and the audit events in one transaction.
 */
export const deployment = defineDeployment({
  table: {
    ConditionCheckItem: ['TENANT#'],
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#'],
    Query: ['TENANT#'],
    UpdateItem: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
