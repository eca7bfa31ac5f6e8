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

/** GET /api-keys: every role of the tenant may see the list (the key page shows it to non-admins). */
const core = async (event: APIGatewayProxyEvent, context: UserContext) => {
  const page = await listApiKeys(db, context.user.tenantId, parsePageQuery(event));
  const now = Date.now();
  return json<ApiKeyPage>(200, { ...page, items: page.items.map((key) => apiKeyView(key, now)) });
};

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens }));
