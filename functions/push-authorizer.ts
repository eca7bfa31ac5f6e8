import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { defineDeployment } from '../lib/deployment';
import { AppError } from '../lib/errors';
import { apiKeyHeader, authorizerResult } from '../lib/http/authorizer';
import { authorizePush } from '../lib/push/push-service';
import { pushDeps } from '../lib/runtime';

/**
 * The key and the tenant (Get); a refusal of a known key counted on its day of usage (Update).
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['APIKEY#', 'TENANT#'],
    UpdateItem: ['APIKEY#'],
  },
});

/**
 * Lambda REQUEST authorizer of the push routes, identity source `x-api-key`, results cached
 * by API Gateway for `resultTtlInSeconds` (serverless.yml). A missing, malformed or unknown key is
 * refused here with 401, before any push Lambda runs (the UNAUTHORIZED gateway response renders the
 * same problem document as the handler would). A usable key is allowed with its tenant's usage plan key,
 * so the plan's rate, burst and monthly quota apply before any Lambda runs; a key that may not push
 * (revoked, expired, tenant inactive, feature missing) is denied with its problem, which the
 * ACCESS_DENIED gateway response renders as the handler's 403, without a Lambda run and without
 * charging the tenant's plan (lib/http/authorizer.ts). Errors other than a refusal (DynamoDB
 * unavailable) surface as AUTHORIZER_FAILURE, rendered as 503. A refusal of a known key is counted in
 * its day of usage (lib/push/push-service.ts, `authorizePush`).
 */
export const handler = async (event: APIGatewayRequestAuthorizerEvent) => {
  try {
    const verification = await authorizePush(pushDeps, {
      apiKey: apiKeyHeader(event),
      method: event.httpMethod,
      source: {
        sourceIp: event.requestContext?.identity?.sourceIp ?? undefined,
        userAgent: event.requestContext?.identity?.userAgent ?? undefined,
      },
    });
    return authorizerResult(verification, event.methodArn);
  } catch (error) {
    // The Lambda authorizer contract: this exact message makes API Gateway answer 401.
    if (error instanceof AppError && error.code === 'INVALID_API_KEY') throw new Error('Unauthorized');
    throw error;
  }
};
