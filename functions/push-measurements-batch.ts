import middy from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { httpErrorHandler, readJsonBody } from '../lib/http/middleware';
import { observe } from '../lib/http/observability';
import { pushRequestOf } from '../lib/http/push';
import type { BatchResultResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { parseInput } from '../lib/http/validation';
import { batchSchema } from '../lib/push/measurement-schema';
import { pushMeasurements } from '../lib/push/push-service';
import { pushDeps } from '../lib/runtime';

/** POST /integrations/push/measurements/batch (spec 4, 8): 1..50 measurements, all or nothing. */
const core = async (event: APIGatewayProxyEvent, context: Context) => {
  const { items, headers } = await pushMeasurements(
    pushDeps,
    pushRequestOf(
      event,
      context,
      async () => parseInput(batchSchema, await readJsonBody(event)).measurements,
    ),
  );
  return json<BatchResultResponse>(
    200,
    {
      count: items.length,
      items: items.map(({ status, measurement }, index) => ({ index, status, measurement })),
    },
    headers,
  );
};

export const handler = middy(core).use(observe()).use(httpErrorHandler());
