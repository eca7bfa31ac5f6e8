import * as z from 'zod/mini';
import { logout } from '../lib/auth/sign-in';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { refreshTokenField } from '../lib/http/schemas';
import { db, publicEndpoint, tokens } from '../lib/runtime';

const logoutRequestSchema = z
  .strictObject({
    refreshToken: refreshTokenField('The `refreshToken` of the session to end.'),
    everywhere: z._default(
      z
        .boolean()
        .check(
          z.describe(
            'Also end every other session of the user (sign out everywhere): every token issued to them before stops working.',
          ),
        ),
      false,
    ),
  })
  .check(z.meta({ id: 'LogoutRequest', description: 'The session to end, by its refresh token.' }));

/**
 * POST /auth/logout: ends the session of a refresh token, which the pages call when a user signs out.
 * The refresh token answers 401 from then on, and the session's access tokens within the session cache's
 * bound (SESSION_CACHE_TTL_SECONDS, at most 60 s). Like RFC 7009, a token that is already invalid,
 * expired or revoked is no error: 204 either way.
 */
export const route = defineRoute({
  operationId: 'logout',
  method: 'post',
  path: '/auth/logout',
  tag: 'Authentication',
  summary: 'Log out (end a session)',
  description:
    'Ends the session of the refresh token: it answers 401 from then on, and the access tokens of the session within 30 seconds (`SESSION_CACHE_TTL_SECONDS`, at most 60). A token that is already invalid, expired or revoked is no error (RFC 7009): 204 either way. With `"everywhere": true` every session of the user ends, which needs a refresh token of a live session (401 otherwise).',
  auth: 'none',
  cors: true,
  body: {
    schema: logoutRequestSchema,
    examples: {
      logout: {
        summary: 'End this session',
        value: { refreshToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6InJ0K2p3dCJ9…' },
      },
      everywhere: {
        summary: 'End every session of the user',
        value: { refreshToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6InJ0K2p3dCJ9…', everywhere: true },
      },
    },
  },
  responses: { 204: { description: 'The session has ended (or was not live).' } },
  errors: ['UNAUTHENTICATED'],
  core: async ({ body, origin }) => {
    await logout({ db, tokens }, body.refreshToken, { everywhere: body.everywhere, origin });
    return reply(204, undefined);
  },
});

/**
 * The session (Delete); to sign out everywhere, the session, user and tenant (BatchGet), the user
 * as it is now (Get) and the user's token version (Update); each with its audit event.
 */
export const deployment = defineDeployment({
  table: {
    ConditionCheckItem: ['TENANT#'],
    BatchGetItem: ['SESSION#', 'TENANT#'],
    DeleteItem: ['SESSION#'],
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#'],
    UpdateItem: ['TENANT#'],
  },
  secrets: ['jwtKey'],
});

export const handler = publicEndpoint(route);
