import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { MeasurementInput } from '../push/measurement-schema';
import type { PushRequest } from '../push/push-service';
import { apiKeyHeader, authorizerVerdict } from './push-auth';
import { pushQuerySchema } from './schemas';
import { parseInput } from './validation';

/**
 * The pipeline's view of a push request: the key, the authorizer's verdict, the body, the time left,
 * and `?dryRun=`. A bad query string is reported like a bad body: after the key is authenticated.
 */
export const pushRequestOf = (
  event: APIGatewayProxyEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  readMeasurements: () => Promise<MeasurementInput[]>,
): PushRequest => {
  let query: { dryRun?: boolean | undefined } = {};
  let queryError: unknown;
  try {
    query = parseInput(pushQuerySchema, event.queryStringParameters ?? {}, { what: 'query string' });
  } catch (error) {
    queryError = error;
  }
  return {
    apiKey: apiKeyHeader(event),
    authorizer: authorizerVerdict(event),
    readMeasurements: queryError === undefined ? readMeasurements : () => Promise.reject(queryError),
    remainingTimeMs: () => context.getRemainingTimeInMillis(),
    dryRun: query.dryRun === true,
  };
};
