import * as z from 'zod/mini';
import { lockoutPolicy } from '../lib/auth/login-throttle';
import { login } from '../lib/auth/sign-in';
import { DEVICE_TOKEN_TTL_SECONDS } from '../lib/auth/tokens';
import { defineDeployment } from '../lib/deployment';
import { DEVICE_COOKIE, deviceCookie, deviceTokenOf } from '../lib/http/device-cookie';
import { defineRoute, reply } from '../lib/http/route';
import { config, db, publicEndpoint, tokens } from '../lib/runtime';

/** Spec 2.2. The password is not trimmed or normalized beyond NFC: it is compared as typed. */
const loginRequestSchema = z
  .strictObject({
    email: z
      .email('email must be an e-mail address')
      .check(z.maxLength(254), z.describe("The user's e-mail address.")),
    password: z
      .string()
      .check(z.minLength(1, 'password is required'), z.maxLength(1024), z.describe("The user's password.")),
    deviceToken: z.optional(
      z
        .string()
        .check(
          z.maxLength(4096),
          z.describe(
            'The `deviceToken` of an earlier login of this client, for API clients (browsers send the cookie). Past the e-mail’s ceiling of failed logins it lets the client in at once; an invalid or expired one counts for nothing.',
          ),
        ),
    ),
  })
  .check(
    z.meta({
      id: 'LoginRequest',
      description: 'E-mails match case-insensitively; the password is compared as typed.',
    }),
  );

/** Spec 2.3. */
const loginResponseSchema = z
  .object({
    token: z
      .string()
      .check(
        z.describe('Access token (JWT, HS256, `typ: at+jwt`): send it as `Authorization: Bearer <token>`.'),
      ),
    refreshToken: z
      .string()
      .check(z.describe('Refresh token (JWT, `typ: rt+jwt`, 30 days): trade it for a new access token.')),
    expiresIn: z.int().check(z.describe('Lifetime of the access token in seconds: 86400.')),
    deviceToken: z
      .string()
      .check(
        z.describe(
          `Device token (JWT, \`typ: device+jwt\`, 90 days): send it as \`deviceToken\` with this client's next logins. Browsers get it as the cookie \`${DEVICE_COOKIE}\` too.`,
        ),
      ),
  })
  .check(
    z.meta({
      id: 'LoginResponse',
      description: 'The access and refresh tokens, and the device token of this client.',
    }),
  );

/** Brute-force protection (lib/auth/login-throttle.ts), as the stage configures it. */
const lockout = lockoutPolicy(config);

export const route = defineRoute({
  operationId: 'login',
  method: 'post',
  path: '/auth/login',
  tag: 'Authentication',
  summary: 'Log in',
  description: `A wrong password and an unknown e-mail get the same 401. Failed logins are counted per e-mail and source address: after 3 failures the source waits before each next attempt (1 s, then twice as long each time), after 10 within 15 minutes it gets 429 until the window ends. A source with 100 failures over all e-mails gets 429 too. A correct password from a source that has not failed is not refused because of failures from other sources. Past 1000 failed logins of one e-mail within 15 minutes, a client that presents a device token of the account (the \`deviceToken\` of an earlier login, or the browser's \`${DEVICE_COOKIE}\` cookie, which the answer sets with \`HttpOnly; Secure; SameSite=Strict\` and the login's path) is let in as before; every other client waits for one of the account's 10 attempts a minute (429 with \`Retry-After\`).`,
  auth: 'none',
  cors: true,
  body: {
    schema: loginRequestSchema,
    examples: {
      login: { summary: 'Demo admin', value: { email: 'admin@acme.example', password: 'demo-password-1' } },
    },
  },
  responses: {
    200: {
      description: 'Logged in.',
      schema: loginResponseSchema,
      example: {
        token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9…',
        refreshToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6InJ0K2p3dCJ9…',
        expiresIn: 86400,
        deviceToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImRldmljZStqd3QifQ…',
      },
    },
  },
  errors: ['INVALID_CREDENTIALS', 'TENANT_INACTIVE', 'USER_DISABLED', 'TOO_MANY_LOGIN_ATTEMPTS'],
  core: async ({ body, event, origin }) => {
    const result = await login(
      { db, tokens, lockout },
      {
        ...body,
        sourceIp: event.requestContext?.identity?.sourceIp,
        origin,
        // An API client sends its token in the body; a browser sends the cookie, which no script can read.
        deviceToken: body.deviceToken ?? deviceTokenOf(event),
      },
    );
    return reply(200, result, {
      'Set-Cookie': deviceCookie(result.deviceToken, event, DEVICE_TOKEN_TTL_SECONDS),
    });
  },
});

/**
 * The e-mail item (Get); user and tenant, the attempt counters (BatchGet); the counters (Update to
 * reserve, give back and delay; Delete when the password is proven); the new session (Put) and the
 * user's last sign-in (Update).
 */
export const deployment = defineDeployment({
  table: {
    BatchGetItem: ['LOGIN#', 'LOGINSOURCE#', 'TENANT#'],
    DeleteItem: ['LOGIN#'],
    GetItem: ['EMAIL#'],
    PutItem: ['AUDIT#', 'SESSION#'],
    UpdateItem: ['LOGIN#', 'LOGINSOURCE#', 'TENANT#'],
  },
  secrets: ['jwtKey'],
});

export const handler = publicEndpoint(route);
