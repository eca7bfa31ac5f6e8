import middy from '@middy/core';
import { apiKeyView, createdApiKeyView } from '../lib/api-keys/views';
import { corsOrigins } from '../lib/config';
import { rollApiKey } from '../lib/db/api-keys';
import { rollApiKeySchema } from '../lib/http/api-key-schemas';
import { jwtAuth } from '../lib/http/jwt-auth';
import { httpErrorHandler, jsonBody } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import type { RolledApiKeyResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import type { JsonEvent, UserContext } from '../lib/http/types';
import { parseInput } from '../lib/http/validation';
import { audit } from '../lib/logger';
import { config, db, tokens } from '../lib/runtime';

/**
 * POST /api-keys/{id}/roll (ADMIN, issue 13): a new key with the same name and scope, its raw key in
 * this response only, and the old key expiring at the end of the grace period (default 24 h).
 */
const core = async (event: JsonEvent, context: UserContext) => {
  const input = parseInput(rollApiKeySchema, event.body);
  const { created, previous } = await rollApiKey(db, {
    ...input,
    tenantId: context.user.tenantId,
    keyId: event.pathParameters?.id ?? '',
    by: { type: 'user', userId: context.user.userId, email: context.user.email },
  });
  audit('api-key.rolled', {
    keyId: previous.id,
    keyPrefix: previous.prefix,
    newKeyId: created.id,
    newKeyPrefix: created.prefix,
    oldKeyExpiresAt: previous.expiresAt,
  });
  const now = Date.now();
  return json<RolledApiKeyResponse>(201, {
    ...createdApiKeyView(created, now),
    previous: apiKeyView(previous, now),
  });
};

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens, roles: ['ADMIN'] }))
  .use(jsonBody({ optional: true }));
