import middy from '@middy/core';
import { login } from '../lib/auth/sessions';
import { httpErrorHandler, jsonBody } from '../lib/http/middleware';
import { json } from '../lib/http/responses';
import { loginSchema } from '../lib/http/schemas';
import type { JsonEvent } from '../lib/http/types';
import { parseInput } from '../lib/http/validation';
import { db, tokens } from '../lib/runtime';

/** POST /auth/login (spec 2.2, 2.3). */
const core = async (event: JsonEvent) =>
  json(200, await login({ db, tokens }, parseInput(loginSchema, event.body)));

export const handler = middy(core).use(httpErrorHandler()).use(jsonBody());
