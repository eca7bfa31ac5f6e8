import * as z from 'zod/mini';
import { refresh } from '../lib/auth/sign-in';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { refreshTokenField } from '../lib/http/schemas';
import { db, publicEndpoint, tokens } from '../lib/runtime';

/** Spec 2.4. */
const refreshRequestSchema = z
  .strictObject({
    refreshToken: refreshTokenField('The `refreshToken` of a login.'),
  })
  .check(z.meta({ id: 'RefreshRequest', description: 'The refresh token of a login.' }));

/** Spec 2.4: a new access token, no new refresh token. */
const refreshResponseSchema = z
  .object({
    token: z.string().check(z.describe('Access token (JWT).')),
    expiresIn: z.int().check(z.describe('Lifetime of the access token in seconds: 86400.')),
  })
  .check(z.meta({ id: 'RefreshResponse', description: 'A new access token, and no new refresh token.' }));

export const route = defineRoute({
  operationId: 'refreshToken',
  method: 'post',
  path: '/auth/refresh-token',
  tag: 'Authentication',
  summary: 'Get a new access token',
  description:
    'Re-reads the user and tenant, so a role change, a disabled user or an inactive tenant takes effect here.',
  auth: 'none',
  cors: true,
  body: {
    schema: refreshRequestSchema,
    examples: {
      refresh: {
        summary: 'A refresh token',
        value: { refreshToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6InJ0K2p3dCJ9…' },
      },
    },
  },
  responses: {
    200: {
      description: 'A new access token.',
      schema: refreshResponseSchema,
      example: { token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9…', expiresIn: 86400 },
    },
  },
  errors: ['UNAUTHENTICATED', 'TENANT_INACTIVE', 'USER_DISABLED'],
  core: async ({ body }) => reply(200, await refresh({ db, tokens }, body.refreshToken)),
});

/**
 * The session, user and tenant (BatchGet).
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['SESSION#', 'TENANT#'],
  },
  secrets: ['jwtKey'],
});

export const handler = publicEndpoint(route);
