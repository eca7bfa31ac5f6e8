import * as z from 'zod/mini';
import { invitePerson } from '../lib/auth/people';
import { linkView, personView, personWithLinkSchema } from '../lib/auth/people-views';
import { defineDeployment } from '../lib/deployment';
import { ROLES } from '../lib/domain/user';
import { requestOrigin } from '../lib/http/page-origin';
import { defineRoute, reply } from '../lib/http/route';
import { linkExample, personExample } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const inviteRequestSchema = z
  .strictObject({
    email: z
      .email('email must be an e-mail address')
      .check(z.maxLength(254), z.describe('The address they will sign in with; matched case-insensitively.')),
    role: z.enum(ROLES).check(z.describe('`ADMIN`, `EDITOR` or `VIEWER`.')),
    name: z.optional(
      z
        .string()
        .check(
          z.trim(),
          z.minLength(1, 'name must not be empty'),
          z.maxLength(100, 'name must be at most 100 characters'),
          z.describe('How the list shows them, 1 to 100 characters; optional.'),
        ),
    ),
  })
  .check(z.meta({ id: 'InviteUserRequest', description: 'Who to invite, and with which role.' }));

/** POST /users (ADMIN): an invited user and their one-time link, which is in this answer only. */
export const route = defineRoute({
  operationId: 'inviteUser',
  method: 'post',
  path: '/users',
  tag: 'People',
  summary: 'Invite a user',
  description: [
    'ADMIN only. Makes an invited user and a one-time link (valid 7 days) with which they set a password and are signed in (`POST /auth/accept-invitation`). The link is in this answer only: the service stores its SHA-256 alone and sends no e-mail, so hand the link to the person yourself.',
    '',
    'An e-mail signs in to one account over all tenants: an address that is already a user of this tenant, or of another, is 409 `email-taken` (a person in two organizations uses two addresses, e.g. `ana+acme@…`). Users that are not deactivated count against the plan’s maximum (Free 5, Business 50, Enterprise 1000): past it, 409 `user-limit-reached`.',
  ].join('\n'),
  auth: 'jwt',
  roles: ['ADMIN'],
  body: {
    schema: inviteRequestSchema,
    examples: {
      editor: {
        summary: 'An editor',
        value: { email: 'ana@acme.example', role: 'EDITOR', name: 'Ana Lima' },
      },
      viewer: { summary: 'A viewer, no name', value: { email: 'bo@acme.example', role: 'VIEWER' } },
    },
  },
  responses: {
    201: {
      description: 'Invited. Hand over `link.url` now: it cannot be shown again.',
      schema: personWithLinkSchema,
      example: {
        user: { ...personExample, status: 'invited', lastSignInAt: null, updatedAt: personExample.createdAt },
        link: linkExample,
      },
    },
  },
  errors: ['EMAIL_TAKEN', 'USER_LIMIT_REACHED'],
  core: async ({ body, user, audit, event }) => {
    const invited = await invitePerson(db, { ...body, tenantId: user.tenantId }, audit);
    return reply(201, { user: personView(invited.user), link: linkView(requestOrigin(event), invited.link) });
  },
});

/**
 * The tenant (Get); then the count, the e-mail's claim, the user, the link and the audit event in one
 * transaction (Update and Puts); after a refusal of the e-mail, its claim (Get), to say whose it is.
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['EMAIL#', 'TENANT#'],
    PutItem: ['AUDIT#', 'EMAIL#', 'TENANT#', 'USERLINK#'],
    UpdateItem: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
