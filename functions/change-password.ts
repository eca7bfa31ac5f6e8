import * as z from 'zod/mini';
import { lockoutPolicy } from '../lib/auth/login-throttle';
import { changeOwnPassword } from '../lib/auth/people';
import { sessionSchema } from '../lib/auth/people-views';
import { defineDeployment } from '../lib/deployment';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../lib/domain/password-policy';
import { defineRoute, reply } from '../lib/http/route';
import { config, db, jwtEndpoint, tokens } from '../lib/runtime';

const changePasswordRequestSchema = z
  .strictObject({
    currentPassword: z
      .string()
      .check(
        z.minLength(1, 'currentPassword is required'),
        z.maxLength(4 * MAX_PASSWORD_LENGTH),
        z.describe('The password the user signs in with now.'),
      ),
    newPassword: z
      .string()
      .check(
        z.minLength(1, 'newPassword is required'),
        z.maxLength(4 * MAX_PASSWORD_LENGTH),
        z.describe(
          `${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters, not the e-mail address nor the organization's name.`,
        ),
      ),
  })
  .check(z.meta({ id: 'ChangePasswordRequest', description: 'The current password and the new one.' }));

/** POST /auth/change-password: the signed-in user's own password; their other sessions end. */
export const route = defineRoute({
  operationId: 'changePassword',
  method: 'post',
  path: '/auth/change-password',
  tag: 'Authentication',
  summary: 'Change one’s own password',
  description: `Every role. The current password must match (a wrong one is 400 naming \`currentPassword\`, and counts for the login throttle like a failed login: past its limits, 429). The new one follows the password policy of \`POST /auth/accept-invitation\`. Every session of the user ends (other devices within 60 s); the answer is a new session for this client, as a login answers.`,
  auth: 'jwt',
  cors: true,
  body: {
    schema: changePasswordRequestSchema,
    examples: {
      change: {
        summary: 'A new password',
        value: { currentPassword: 'demo-password-1', newPassword: 'a much longer passphrase' },
      },
    },
  },
  responses: {
    200: {
      description: 'Changed; a new session.',
      schema: sessionSchema,
      example: {
        token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9…',
        refreshToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6InJ0K2p3dCJ9…',
        expiresIn: 86400,
      },
    },
  },
  errors: ['TOO_MANY_LOGIN_ATTEMPTS'],
  core: async ({ body, user, event, origin }) => {
    const session = await changeOwnPassword({ db, tokens, lockout: lockoutPolicy(config) }, user, {
      ...body,
      sourceIp: event.requestContext?.identity?.sourceIp,
      origin,
    });
    return reply(200, session);
  },
});

/**
 * The user and tenant, the attempt counters (BatchGet); the counters (Update, Delete); the new password
 * with the audit events in one transaction; the new session (Put).
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['LOGIN#', 'LOGINSOURCE#', 'TENANT#'],
    ConditionCheckItem: ['TENANT#'],
    DeleteItem: ['LOGIN#'],
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#', 'SESSION#'],
    UpdateItem: ['LOGIN#', 'LOGINSOURCE#', 'TENANT#'],
  },
  secrets: ['jwtKey'],
});

export const handler = jwtEndpoint(route);
