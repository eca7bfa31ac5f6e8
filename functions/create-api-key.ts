import middy from '@middy/core';
import { createdApiKeyView } from '../lib/api-keys/views';
import { corsOrigins } from '../lib/config';
import { createApiKey } from '../lib/db/api-keys';
import { createApiKeySchema } from '../lib/http/api-key-schemas';
import { jwtAuth } from '../lib/http/jwt-auth';
import { httpErrorHandler, jsonBody } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import type { CreatedApiKeyResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
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
    createdBy: { type: 'user', userId: context.user.userId, email: context.user.email },
  });
  audit('api-key.created', {
    keyId: created.id,
    keyPrefix: created.prefix,
    expiresAt: created.expiresAt,
    scopedKpis: created.kpiIds?.length ?? null,
  });
  return json<CreatedApiKeyResponse>(201, createdApiKeyView(created));
};

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens, roles: ['ADMIN'] }))
  .use(jsonBody());
