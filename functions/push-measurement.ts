import middy from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { httpErrorHandler, readJsonBody } from '../lib/http/middleware';
import { observe } from '../lib/http/observability';
import { pushRequestOf } from '../lib/http/push';
import type { DryRunMeasurementResponse, MeasurementResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { parseInput } from '../lib/http/validation';
import { measurementSchema } from '../lib/push/measurement-schema';
import { pushMeasurements } from '../lib/push/push-service';
import { pushDeps } from '../lib/runtime';

/**
 * POST /integrations/push/measurement (spec 2.5, 5.2): 201 when created, 200 when it replaced.
 * `?dryRun=true` (issue 12): 200 `{ dryRun, status, measurement }`, nothing written.
 */
const core = async (event: APIGatewayProxyEvent, context: Context) => {
  const result = await pushMeasurements(
    pushDeps,
    pushRequestOf(event, context, async () => [parseInput(measurementSchema, await readJsonBody(event))]),
  );
  if (result.dryRun) {
    const [{ status, measurement }] = result.items as [(typeof result.items)[number]];
    return json<DryRunMeasurementResponse>(200, { dryRun: true, status, measurement }, result.headers);
  }
  const [{ status, measurement }] = result.items as [(typeof result.items)[number]];
  return json<MeasurementResponse>(status === 'created' ? 201 : 200, measurement, result.headers);
};

export const handler = middy(core).use(observe()).use(httpErrorHandler());
