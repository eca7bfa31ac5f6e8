import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { corsOrigins } from '../lib/config';
import { revokeApiKey } from '../lib/db/api-keys';
import { jwtAuth } from '../lib/http/jwt-auth';
import { httpErrorHandler } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import { noContent } from '../lib/http/responses';
import type { UserContext } from '../lib/http/types';
import { audit } from '../lib/logger';
import { config, db, tokens } from '../lib/runtime';

/** DELETE /api-keys/{id} (ADMIN): revokes at once, recording who (issue 13); idempotent; another tenant's key is 404. */
const core = async (event: APIGatewayProxyEvent, context: UserContext) => {
  const keyId = event.pathParameters?.id ?? '';
  await revokeApiKey(db, context.user.tenantId, keyId, { type: 'user', userId: context.user.userId });
  // Revoking is idempotent, and so is its audit line: one per successful request.
  audit('api-key.revoked', { keyId });
  return noContent();
};

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens, roles: ['ADMIN'] }));
