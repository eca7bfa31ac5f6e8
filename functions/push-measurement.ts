import middy from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { httpErrorHandler, readJsonBody } from '../lib/http/middleware';
import { observe } from '../lib/http/observability';
import { pushRequestOf } from '../lib/http/push';
import type { MeasurementResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { parseInput } from '../lib/http/validation';
import { measurementSchema } from '../lib/push/measurement-schema';
import { pushMeasurements } from '../lib/push/push-service';
import { pushDeps } from '../lib/runtime';

/** POST /integrations/push/measurement (spec 2.5, 5.2): 201 when created, 200 when it replaced. */
const core = async (event: APIGatewayProxyEvent, context: Context) => {
  const { items, headers } = await pushMeasurements(
    pushDeps,
    pushRequestOf(event, context, async () => [parseInput(measurementSchema, await readJsonBody(event))]),
  );
  const [{ status, measurement }] = items as [(typeof items)[number]];
  return json<MeasurementResponse>(status === 'created' ? 201 : 200, measurement, headers);
};

export const handler = middy(core).use(observe()).use(httpErrorHandler());
