import middy from '@middy/core';
import { httpErrorHandler } from '../lib/http/middleware';
import { observe } from '../lib/http/observability';
import type { HealthResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { checkHealth } from '../lib/runtime';

/**
 * GET /health (issue 12), without authentication, for uptime monitors: 200 when the function and its
 * DynamoDB table answer, else 503 `service-unavailable` (lib/health.ts; README "Health").
 */
const core = async () => {
  await checkHealth();
  return json<HealthResponse>(200, { status: 'ok' });
};

export const handler = middy(core).use(observe()).use(httpErrorHandler());
