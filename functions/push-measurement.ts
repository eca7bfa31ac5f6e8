import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { httpErrorHandler, readJsonBody } from '../lib/http/middleware';
import { header, json } from '../lib/http/responses';
import { parseInput } from '../lib/http/validation';
import { measurementSchema } from '../lib/push/measurement-schema';
import { pushMeasurements } from '../lib/push/push-service';
import { pushDeps } from '../lib/runtime';

/** POST /integrations/push/measurement (spec 2.5, 5.2): 201 when created, 200 when it replaced. */
const core = async (event: APIGatewayProxyEvent) => {
  const { items, headers } = await pushMeasurements(pushDeps, {
    apiKey: header(event, 'x-api-key'),
    readMeasurements: async () => [parseInput(measurementSchema, await readJsonBody(event))],
  });
  const [{ status, measurement }] = items as [(typeof items)[number]];
  return json(status === 'created' ? 201 : 200, measurement, headers);
};

export const handler = middy(core).use(httpErrorHandler());
