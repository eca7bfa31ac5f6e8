import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { AppError } from '../lib/errors';
import { apiKeyHeader, authorizerResult } from '../lib/http/push-auth';
import { verifyApiKey } from '../lib/push/api-key-auth';
import { pushDeps } from '../lib/runtime';

/**
 * Lambda REQUEST authorizer of the push routes (issue 10), identity source `x-api-key`, results cached
 * by API Gateway for `resultTtlInSeconds` (serverless.yml). A missing, malformed or unknown key is
 * refused here with 401, before any push Lambda runs (the UNAUTHORIZED gateway response renders the
 * same problem document as the handler would). A known key is allowed with its tenant's usage plan key,
 * so the plan's rate, burst and monthly quota apply before any Lambda runs; a key that may not push
 * (revoked, expired, tenant inactive, feature missing) is answered 403 by the handler. Errors other than
 * a refusal (DynamoDB unavailable) surface as AUTHORIZER_FAILURE, rendered as 503.
 */
export const handler = async (event: APIGatewayRequestAuthorizerEvent) => {
  try {
    return authorizerResult(await verifyApiKey(pushDeps, apiKeyHeader(event)), event.methodArn);
  } catch (error) {
    // The Lambda authorizer contract: this exact message makes API Gateway answer 401.
    if (error instanceof AppError && error.code === 'INVALID_API_KEY') throw new Error('Unauthorized');
    throw error;
  }
};
