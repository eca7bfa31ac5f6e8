import middy from '@middy/core';
import { refresh } from '../lib/auth/sessions';
import { corsOrigins } from '../lib/config';
import { httpErrorHandler, jsonBody } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import type { RefreshResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { refreshSchema } from '../lib/http/schemas';
import type { JsonEvent } from '../lib/http/types';
import { parseInput } from '../lib/http/validation';
import { config, db, tokens } from '../lib/runtime';

/** POST /auth/refresh-token (spec 2.4). */
const core = async (event: JsonEvent) => {
  const { refreshToken } = parseInput(refreshSchema, event.body);
  return json<RefreshResponse>(200, await refresh({ db, tokens }, refreshToken));
};

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jsonBody());
