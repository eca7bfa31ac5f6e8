import * as z from 'zod/mini';
import { lockoutPolicy } from '../lib/auth/login-throttle';
import { acceptLink } from '../lib/auth/people';
import { sessionSchema } from '../lib/auth/people-views';
import { defineDeployment } from '../lib/deployment';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../lib/domain/password-policy';
import { defineRoute, reply } from '../lib/http/route';
import { config, db, publicEndpoint, tokens } from '../lib/runtime';

const acceptRequestSchema = z
  .strictObject({
    token: z
      .string()
      .check(
        z.minLength(1, 'token is required'),
        z.maxLength(256),
        z.describe('The one-time token: what follows `#token=` in the link.'),
      ),
    password: z
      .string()
      .check(
        z.minLength(1, 'password is required'),
        z.maxLength(4 * MAX_PASSWORD_LENGTH),
        z.describe(
          `The new password: ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters, not the e-mail address nor the organization's name; any characters, no other rules.`,
        ),
      ),
  })
  .check(z.meta({ id: 'AcceptInvitationRequest', description: 'The link’s token and the password to set.' }));

/** POST /auth/accept-invitation: an invitation or a reset link sets a password and signs in. */
export const route = defineRoute({
  operationId: 'acceptInvitation',
  method: 'post',
  path: '/auth/accept-invitation',
  tag: 'Authentication',
  summary: 'Set a password with a one-time link',
  description: `For an invitation or a password reset link (\`POST /users\`, \`POST /users/{id}/password-reset\`). Sets the password and answers as a login does. A link works once and for 7 days; a used, expired, replaced or unknown token gets the same 400 \`invalid-link\` (the reason is in the tenant’s audit log). The password is ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters and is not the e-mail address nor the organization’s name (NIST SP 800-63B; no composition rules): a refused one is 400 naming \`password\`, and the link stays usable. Refused tokens count for the login throttle of the source address: past its limits, 429.`,
  auth: 'none',
  cors: true,
  body: {
    schema: acceptRequestSchema,
    examples: {
      accept: {
        summary: 'Accept an invitation',
        value: {
          token: 'sul_Xq3v9Zk2Lw8bR1tYp0cN5mA7sD4fG6hJ2kL9zQ1wE3r',
          password: 'correct horse battery',
        },
      },
    },
  },
  responses: {
    200: {
      description: 'Password set; signed in.',
      schema: sessionSchema,
      example: {
        token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9…',
        refreshToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6InJ0K2p3dCJ9…',
        expiresIn: 86400,
      },
    },
  },
  errors: ['INVALID_LINK', 'TENANT_INACTIVE', 'TOO_MANY_LOGIN_ATTEMPTS'],
  core: async ({ body, event, origin }) => {
    const session = await acceptLink(
      { db, tokens, lockout: lockoutPolicy(config) },
      { ...body, sourceIp: event.requestContext?.identity?.sourceIp, origin },
    );
    return reply(200, session);
  },
});

/**
 * The link (Get); its user and tenant, the attempt counters (BatchGet); the counters (Update, Delete);
 * the link's use, the password and the audit event in one transaction; the new session (Put).
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['LOGIN#', 'LOGINSOURCE#', 'TENANT#'],
    DeleteItem: ['LOGIN#'],
    GetItem: ['USERLINK#'],
    PutItem: ['AUDIT#', 'SESSION#'],
    UpdateItem: ['LOGIN#', 'LOGINSOURCE#', 'TENANT#', 'USERLINK#'],
  },
  secrets: ['jwtKey'],
});

export const handler = publicEndpoint(route);
