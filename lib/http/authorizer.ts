import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent } from 'aws-lambda';
import { type AppError, errorCatalog, problemType } from '../errors';
import { invalidApiKey, type KeyVerification } from '../push/key-verification';
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
 * reuses it for every method behind the same authorizer, so the policy must cover all of them, not
 * only the method of the first request: `<api>/<stage>/*` + `/api/integrations/push/*`.
 */
export const pushRoutesArn = (methodArn: string, method = '*', route = '*'): string => {
  const [api, stage] = methodArn.split('/');
  return `${api}/${stage}/${method}/api/integrations/push/${route}`;
};

/** Text for a context value that the ACCESS_DENIED gateway response puts between JSON quotes. */
const jsonText = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * The problem document of a refusal, as context values: infra/gateway-responses.json renders them as
 * the ACCESS_DENIED answer (`$context.authorizer.problemType` …), the same document the handler would
 * answer. The extension members (a missing plan feature) come as one JSON fragment.
 */
const problemContext = (refusal: AppError) => {
  const { title } = errorCatalog[refusal.code];
  return {
    problemType: problemType(refusal.code),
    problemTitle: jsonText(title),
    problemDetail: jsonText(refusal.message),
    problemExtensions: Object.entries(refusal.extensions)
      .map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`)
      .join(''),
  };
};

type Statement = { Action: string; Effect: 'Allow' | 'Deny'; Resource: string };

/**
 * What the authorizer answers for a known key (an unknown one is refused with 401 before this).
 *
 * A usable key is allowed on every push route with its tenant's usage plan key (`usageIdentifierKey`),
 * so API Gateway applies the plan's rate, burst and monthly quota before any Lambda runs. A key that may
 * not push is denied at the edge: no Lambda runs, and without a usage plan key nothing is counted
 * against the tenant's plan (a leaked key that was revoked cannot use up its throttle or quota). The
 * answer carries the refusal as a problem document that the ACCESS_DENIED gateway response renders:
 * 403, as the handler would answer. A key whose tenant's plan lacks push is the one exception: the key
 * itself is fine, so the key check (`GET …/push/key`) still answers it (200 with `pushEnabled: false`),
 * metered by its plan; only the pushes are denied.
 */
export const authorizerResult = (
  verification: KeyVerification,
  methodArn: string,
): APIGatewayAuthorizerResult & { usageIdentifierKey?: string } => {
  const { refusal } = verification;
  const usableKey = !refusal || refusal.code === 'FEATURE_NOT_ENABLED';
  const statement = (Effect: Statement['Effect'], Resource: string): Statement => ({
    Action: 'execute-api:Invoke',
    Effect,
    Resource,
  });
  const statements = !refusal
    ? [statement('Allow', pushRoutesArn(methodArn))]
    : usableKey
      ? [
          statement('Allow', pushRoutesArn(methodArn, 'GET', 'key')),
          statement('Deny', pushRoutesArn(methodArn, 'POST')),
        ]
      : [statement('Deny', pushRoutesArn(methodArn))];
  return {
    principalId: verification.key.id,
    policyDocument: { Version: '2012-10-17', Statement: statements },
    // API Gateway passes context values to the handler as strings, numbers or booleans only.
    context: {
      keyId: verification.key.id,
      tenantId: verification.key.tenantId,
      status: refusal ? 'refused' : 'active',
      ...(refusal ? problemContext(refusal) : {}),
    },
    ...(usableKey && verification.tenant?.usageKey
      ? { usageIdentifierKey: verification.tenant.usageKey.value }
      : {}),
  };
};

/** The authorizer's answer as API Gateway hands it to the handler, or undefined without one. */
export const authorizerVerdict = (
  event: Pick<APIGatewayProxyEvent, 'requestContext'>,
): AuthorizerVerdict | undefined => {
  const context = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  if (!context || typeof context.keyId !== 'string') return undefined;
  return { keyId: context.keyId, status: context.status === 'active' ? 'active' : 'refused' };
};
