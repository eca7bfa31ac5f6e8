import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent } from 'aws-lambda';
import { invalidApiKey, type KeyVerification } from '../push/api-key-auth';
import type { AuthorizerVerdict } from '../push/push-service';
import { header } from './responses';

/**
 * The `x-api-key` header. Sent twice with different values it is an ambiguous credential: 401, like a
 * key that does not work, wherever it is read (authorizer, handler, key check).
 */
export const apiKeyHeader = (event: Parameters<typeof header>[0]): string | undefined => {
  try {
    return header(event, 'x-api-key');
  } catch {
    // header() throws only for a header sent twice with different values.
    throw invalidApiKey('Send exactly one x-api-key header.');
  }
};

/**
 * The push routes' policy. API Gateway caches an authorizer's answer per identity source (the key) and
 * reuses it for every method behind the same authorizer, so the policy must allow all of them, not
 * only the method of the first request: `<api>/<stage>/*` + `/api/integrations/push/*`.
 */
export const pushRoutesArn = (methodArn: string): string => {
  const [api, stage] = methodArn.split('/');
  return `${api}/${stage}/*/api/integrations/push/*`;
};

/**
 * What the authorizer answers for a known key (an unknown one is refused with 401 before this).
 * A key that may not push right now is still allowed through: the handler answers its 403 with the
 * same problem document as without the authorizer, and counts it against nothing. API Gateway applies
 * the tenant's usage plan (rate, burst, monthly quota) to the request through `usageIdentifierKey`.
 */
export const authorizerResult = (
  verification: KeyVerification,
  methodArn: string,
): APIGatewayAuthorizerResult & { usageIdentifierKey?: string } => ({
  principalId: verification.key.id,
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: pushRoutesArn(methodArn) }],
  },
  // API Gateway passes context values to the handler as strings, numbers or booleans only.
  context: {
    keyId: verification.key.id,
    tenantId: verification.key.tenantId,
    status: verification.refusal ? 'refused' : 'active',
  },
  ...(verification.tenant?.usageKey ? { usageIdentifierKey: verification.tenant.usageKey.value } : {}),
});

/** The authorizer's answer as API Gateway hands it to the handler, or undefined without one. */
export const authorizerVerdict = (
  event: Pick<APIGatewayProxyEvent, 'requestContext'>,
): AuthorizerVerdict | undefined => {
  const context = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  if (!context || typeof context.keyId !== 'string') return undefined;
  return { keyId: context.keyId, status: context.status === 'active' ? 'active' : 'refused' };
};
