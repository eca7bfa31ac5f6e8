import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { httpErrorHandler } from '../lib/http/middleware';
import { observe } from '../lib/http/observability';
import { apiKeyHeader } from '../lib/http/push-auth';
import type { KeyCheckResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { checkApiKey } from '../lib/push/key-check';
import { pushDeps } from '../lib/runtime';

/** GET /integrations/push/key (issue 12): the key behind `x-api-key`, its organization and its budget. */
const core = async (event: APIGatewayProxyEvent) => {
  const { body, headers } = await checkApiKey(pushDeps, apiKeyHeader(event));
  return json<KeyCheckResponse>(200, body, headers);
};

export const handler = middy(core).use(observe()).use(httpErrorHandler());
