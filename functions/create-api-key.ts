import middy from '@middy/core';
import { corsOrigins } from '../lib/config';
import { createApiKey } from '../lib/db/api-keys';
import { jwtAuth } from '../lib/http/jwt-auth';
import { httpErrorHandler, jsonBody } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import type { CreatedApiKeyResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { createApiKeySchema } from '../lib/http/schemas';
import type { JsonEvent, UserContext } from '../lib/http/types';
import { parseInput } from '../lib/http/validation';
import { audit } from '../lib/logger';
import { config, db, tokens } from '../lib/runtime';

/** POST /api-keys (ADMIN): the raw key is in this response only (spec 2.7). */
const core = async (event: JsonEvent, context: UserContext) => {
  const input = parseInput(createApiKeySchema, event.body);
  const created = await createApiKey(db, {
    ...input,
    tenantId: context.user.tenantId,
    createdBy: context.user.userId,
  });
  const { id, name, prefix, key, createdAt, expiresAt } = created;
  audit('api-key.created', { keyId: id, keyPrefix: prefix, expiresAt });
  return json<CreatedApiKeyResponse>(201, { id, name, prefix, key, status: 'active', createdAt, expiresAt });
};

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens, roles: ['ADMIN'] }))
  .use(jsonBody());
