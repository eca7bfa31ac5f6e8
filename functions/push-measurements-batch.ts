import middy from '@middy/core';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { httpErrorHandler, readJsonBody } from '../lib/http/middleware';
import { observe } from '../lib/http/observability';
import { pushRequestOf } from '../lib/http/push';
import type { BatchResultResponse, DryRunBatchResponse } from '../lib/http/response-schemas';
import { json } from '../lib/http/responses';
import { parseInput } from '../lib/http/validation';
import { batchSchema } from '../lib/push/measurement-schema';
import { pushMeasurements } from '../lib/push/push-service';
import { pushDeps } from '../lib/runtime';

/**
 * POST /integrations/push/measurements/batch (spec 4, 8): 1..50 measurements, all or nothing.
 * `?dryRun=true` (issue 12): the same answer with `dryRun: true`, nothing written.
 */
const core = async (event: APIGatewayProxyEvent, context: Context) => {
  const result = await pushMeasurements(
    pushDeps,
    pushRequestOf(
      event,
      context,
      async () => parseInput(batchSchema, await readJsonBody(event)).measurements,
    ),
  );
  const indexed = <T>(items: T[]) => items.map((item, index) => ({ index, ...item }));
  if (result.dryRun) {
    return json<DryRunBatchResponse>(
      200,
      { dryRun: true, count: result.items.length, items: indexed(result.items) },
      result.headers,
    );
  }
  return json<BatchResultResponse>(
    200,
    { count: result.items.length, items: indexed(result.items) },
    result.headers,
  );
};

export const handler = middy(core).use(observe()).use(httpErrorHandler());
