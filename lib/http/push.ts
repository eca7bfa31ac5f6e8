import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { MeasurementInput } from '../push/measurement-schema';
import type { PushRequest } from '../push/push-service';
import { apiKeyHeader, authorizerVerdict } from './push-auth';

/** The pipeline's view of a push request: the key, the authorizer's verdict, the body, the time left. */
export const pushRequestOf = (
  event: APIGatewayProxyEvent,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  readMeasurements: () => Promise<MeasurementInput[]>,
): PushRequest => ({
  apiKey: apiKeyHeader(event),
  authorizer: authorizerVerdict(event),
  readMeasurements,
  remainingTimeMs: () => context.getRemainingTimeInMillis(),
});
