import middy from '@middy/core';
import { type LoginLockoutPolicy, login } from '../lib/auth/sessions';
import { corsOrigins } from '../lib/config';
import { httpErrorHandler, jsonBody } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import type { LoginResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { loginSchema } from '../lib/http/schemas';
import type { JsonEvent } from '../lib/http/types';
import { parseInput } from '../lib/http/validation';
import { config, db, tokens } from '../lib/runtime';

/** Issue 5: brute-force protection per e-mail, from LOGIN_MAX_FAILURES / LOGIN_LOCKOUT_WINDOW_SECONDS. */
const lockout: LoginLockoutPolicy = {
  maxFailures: config.LOGIN_MAX_FAILURES,
  windowSeconds: config.LOGIN_LOCKOUT_WINDOW_SECONDS,
};

/** POST /auth/login (spec 2.2, 2.3). */
const core = async (event: JsonEvent) =>
  json<LoginResponse>(200, await login({ db, tokens, lockout }, parseInput(loginSchema, event.body)));

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jsonBody());
