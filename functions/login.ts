import * as z from 'zod/mini';
import { type LoginThrottlePolicy, login } from '../lib/auth/sessions';
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
  })
  .check(
    z.meta({
      id: 'LoginRequest',
      description: 'Spec 2.2. E-mails match case-insensitively; the password is compared as typed.',
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
  })
  .check(z.meta({ id: 'LoginResponse', description: 'Spec 2.3.' }));

/**
 * Brute-force protection (lib/auth/login-throttle.ts) from LOGIN_MAX_FAILURES,
 * LOGIN_MAX_FAILURES_PER_SOURCE, LOGIN_FAILURE_CEILING_PER_EMAIL and LOGIN_LOCKOUT_WINDOW_SECONDS.
 * Three failures per e-mail and source are free; then the source waits 1 s, 2 s, 4 s… before each next.
 */
const lockout: LoginThrottlePolicy = {
  windowSeconds: config.LOGIN_LOCKOUT_WINDOW_SECONDS,
  maxFailures: config.LOGIN_MAX_FAILURES,
  maxFailuresPerSource: config.LOGIN_MAX_FAILURES_PER_SOURCE,
  emailCeiling: config.LOGIN_FAILURE_CEILING_PER_EMAIL,
  freeFailures: 3,
};

export const route = defineRoute({
  operationId: 'login',
  method: 'post',
  path: '/auth/login',
  tag: 'Authentication',
  summary: 'Log in',
  description:
    'Spec 2.2, 2.3. A wrong password and an unknown e-mail get the same 401. Failed logins are counted per e-mail and source address: after 3 failures the source waits before each next attempt (1 s, then twice as long each time), after 10 within 15 minutes it gets 429 until the window ends. A source with 100 failures over all e-mails gets 429 too. A correct password from a source that has not failed is not refused because of failures from other sources.',
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
      },
    },
  },
  errors: ['INVALID_CREDENTIALS', 'TENANT_INACTIVE', 'USER_DISABLED', 'TOO_MANY_LOGIN_ATTEMPTS'],
  core: async ({ body, event }) =>
    reply(
      200,
      await login({ db, tokens, lockout }, { ...body, sourceIp: event.requestContext?.identity?.sourceIp }),
    ),
});

export const handler = publicEndpoint(route);
