import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { apiKeyView } from '../lib/api-keys/views';
import { corsOrigins } from '../lib/config';
import { listApiKeys } from '../lib/db/api-keys';
import { jwtAuth } from '../lib/http/jwt-auth';
import { httpErrorHandler } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import type { ApiKeyPage } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { parsePageQuery } from '../lib/http/schemas';
import type { UserContext } from '../lib/http/types';
import { config, db, tokens } from '../lib/runtime';

/**
 * GET /api-keys: every role of the tenant may see the list (the key page shows it to non-admins), with
 * the tenant's plan (name, key maximum, features) so a client can say "2 of 3 keys used" (issue 13).
 */
const core = async (event: APIGatewayProxyEvent, context: UserContext) => {
  const list = await listApiKeys(db, context.user.tenantId, parsePageQuery(event));
  const now = Date.now();
  return json<ApiKeyPage>(200, { ...list, items: list.items.map((key) => apiKeyView(key, now)) });
};

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens }));
