import { issueLink } from '../lib/auth/people';
import { linkView, personView, personWithLinkSchema } from '../lib/auth/people-views';
import { defineDeployment } from '../lib/deployment';
import { requestOrigin } from '../lib/http/page-origin';
import { defineRoute, reply } from '../lib/http/route';
import { userIdParams } from '../lib/http/schemas';
import { linkExample, personExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

/** POST /users/{id}/password-reset (ADMIN): a new one-time link; the user's sessions end. */
export const route = defineRoute({
  operationId: 'resetUserPassword',
  method: 'post',
  path: '/users/{id}/password-reset',
  tag: 'People',
  summary: 'Give a user a new one-time link',
  description:
    'ADMIN only. A new one-time link (valid 7 days, in this answer only) with which the user sets a new password: a reset for a user who has one, a new invitation for one who has not accepted theirs. It replaces the user’s open link, and every session of the user ends (access tokens within 60 s). Their current password works until the new one is set: deactivate a user whose password others know. A deactivated user is 409 `conflict`: reactivate them first.',
  auth: 'jwt',
  roles: ['ADMIN'],
  pathParams: userIdParams,
  responses: {
    201: {
      description: 'A new link. Hand over `link.url` now: it cannot be shown again.',
      schema: personWithLinkSchema,
      example: { user: personExample, link: { ...linkExample, purpose: 'password-reset' } },
    },
  },
  errors: ['NOT_FOUND', 'CONFLICT'],
  core: async ({ params: { id }, user, audit, event }) => {
    const issued = await issueLink(db, { tenantId: user.tenantId, userId: id }, audit);
    return reply(201, { user: personView(issued.user), link: linkView(requestOrigin(event), issued.link) });
  },
});

/** The user (Get); the change, the new link and the audit events in one transaction. */
export const deployment = defineDeployment({
  table: {
    ConditionCheckItem: ['TENANT#'],
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#', 'USERLINK#'],
    UpdateItem: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
