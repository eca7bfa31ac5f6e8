import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { revokeApiKey } from '../lib/db/api-keys';
import { jwtAuth } from '../lib/http/jwt-auth';
import { httpErrorHandler } from '../lib/http/middleware';
import { noContent } from '../lib/http/responses';
import type { UserContext } from '../lib/http/types';
import { db, tokens } from '../lib/runtime';

/** DELETE /api-keys/{id} (ADMIN): revokes at once; idempotent; another tenant's key is 404. */
const core = async (event: APIGatewayProxyEvent, context: UserContext) => {
  await revokeApiKey(db, context.user.tenantId, event.pathParameters?.id ?? '');
  return noContent();
};

export const handler = middy(core)
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens, roles: ['ADMIN'] }));
