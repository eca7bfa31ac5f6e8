import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { corsOrigins } from '../lib/config';
import { listStrategicCycles } from '../lib/db/strategic-cycles';
import { jwtAuth } from '../lib/http/jwt-auth';
import { httpErrorHandler } from '../lib/http/middleware';
import { cors, observe } from '../lib/http/observability';
import type { StrategicCyclePage } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { parsePageQuery } from '../lib/http/schemas';
import type { UserContext } from '../lib/http/types';
import { config, db, tokens } from '../lib/runtime';

/** GET /strategic-cycles (spec 4, 5.1): the caller's tenant's cycles. */
const core = async (event: APIGatewayProxyEvent, context: UserContext) =>
  json<StrategicCyclePage>(200, await listStrategicCycles(db, context.user.tenantId, parsePageQuery(event)));

export const handler = middy(core)
  .use(observe())
  .use(cors(corsOrigins(config)))
  .use(httpErrorHandler())
  .use(jwtAuth({ tokens }));
