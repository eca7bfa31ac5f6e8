import { randomUUID } from 'node:crypto';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import { handler as pushAuthorizer } from '../../functions/push-authorizer';
import gatewayResponses from '../../infra/gateway-responses.json';
import { apiEvent, type EventInput, type Handler, type InvokeResult, lambdaContext } from './events';

type AuthorizerAnswer = APIGatewayAuthorizerResult & { usageIdentifierKey?: string };

/** What API Gateway's own answer was before a gateway response rendered it: its status and message. */
export interface GatewayError {
  statusCode: number;
  message: string;
}

/**
 * A gateway response of infra/gateway-responses.json, rendered as API Gateway renders it: with the
 * request id, the context of a denying authorizer (`$context.authorizer.<name>`), and API Gateway's
 * own message (`$context.error.messageString`, quoted) and status where the response sets none (the
 * DEFAULT_4XX and DEFAULT_5XX responses keep the status of the answer they render).
 */
export const renderGatewayResponse = (
  responseType: string,
  requestId: string = randomUUID(),
  authorizerContext: Record<string, unknown> = {},
  error: GatewayError = { statusCode: 500, message: 'Internal server error' },
): InvokeResult => {
  const resource = Object.values(gatewayResponses).find((r) => r.Properties.ResponseType === responseType);
  if (!resource) throw new Error(`no gateway response of type ${responseType}`);
  const { ResponseParameters, ResponseTemplates } = resource.Properties;
  const StatusCode = 'StatusCode' in resource.Properties ? resource.Properties.StatusCode : undefined;
  const headers = Object.fromEntries(
    Object.entries(ResponseParameters as Record<string, string>).map(([name, value]) => [
      name.slice('gatewayresponse.header.'.length).toLowerCase(),
      // A static value is a quoted literal, in which a quote is written \'.
      value.slice(1, -1).replaceAll("\\'", "'"),
    ]),
  );
  const body = (ResponseTemplates['application/json'] as string)
    .replaceAll('$context.requestId', requestId)
    .replaceAll('$context.error.messageString', JSON.stringify(error.message))
    .replace(/\$context\.authorizer\.(\w+)/g, (_, name: string) => String(authorizerContext[name] ?? ''));
  return {
    status: StatusCode === undefined ? error.statusCode : Number(StatusCode),
    headers,
    body: JSON.parse(body),
  };
};

/**
 * API Gateway in front of the push handlers, as far as the push routes use it (serverless.yml): the
 * Lambda REQUEST authorizer with its identity sources (`x-api-key` and the caller's address) and its
 * result cache per identity, the authorizer's context handed to the handler, and the gateway
 * responses for its refusals. What it does not do is
 * throttle (usage plans): `usageKeys` records the usage identifier of every admitted request instead,
 * and `denied` counts the requests the policy denied (no Lambda ran, nothing was metered).
 */
export const createGateway = ({
  cacheTtlMs = 0,
  now = Date.now,
}: {
  cacheTtlMs?: number;
  now?: () => number;
} = {}) => {
  const cache = new Map<string, { answer: AuthorizerAnswer; expiresAt: number }>();
  const state = { authorizerRuns: 0, denied: 0, usageKeys: [] as (string | undefined)[] };

  const authorize = async (event: APIGatewayRequestAuthorizerEvent, identity: string) => {
    const cached = cache.get(identity);
    if (cached && cached.expiresAt > now()) return cached.answer;
    state.authorizerRuns += 1;
    const answer = (await pushAuthorizer(event)) as AuthorizerAnswer;
    if (cacheTtlMs > 0) cache.set(identity, { answer, expiresAt: now() + cacheTtlMs });
    return answer;
  };

  const invoke = async (
    handler: unknown,
    input: EventInput | APIGatewayProxyEvent,
  ): Promise<InvokeResult> => {
    // A fresh requestContext: the authorizer's context is set on it below.
    const event =
      'httpMethod' in input ? { ...input, requestContext: { ...input.requestContext } } : apiEvent(input);
    const apiKey = Object.entries(event.headers ?? {}).find(
      ([name]) => name.toLowerCase() === 'x-api-key',
    )?.[1];
    // API Gateway answers 401 without running the authorizer when an identity source is missing.
    if (!apiKey) return renderGatewayResponse('UNAUTHORIZED');
    const identity = `${apiKey} ${event.requestContext.identity.sourceIp}`;
    const methodArn = `arn:aws:execute-api:eu-central-1:123456789012:test/test/${event.httpMethod}${event.resource}`;
    let answer: AuthorizerAnswer;
    try {
      answer = await authorize(
        {
          type: 'REQUEST',
          methodArn,
          resource: event.resource,
          path: event.path,
          httpMethod: event.httpMethod,
          headers: event.headers,
          multiValueHeaders: event.multiValueHeaders,
          pathParameters: event.pathParameters,
          queryStringParameters: event.queryStringParameters,
          multiValueQueryStringParameters: event.multiValueQueryStringParameters,
          stageVariables: event.stageVariables,
          requestContext: event.requestContext,
        } as APIGatewayRequestAuthorizerEvent,
        identity,
      );
    } catch (error) {
      return renderGatewayResponse(
        error instanceof Error && error.message === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE',
      );
    }
    // IAM's rule: an explicit Deny wins; without a matching Allow the request is denied too.
    const matching = (effect: string) =>
      answer.policyDocument.Statement.some(
        (statement) =>
          'Effect' in statement &&
          statement.Effect === effect &&
          [(statement as { Resource?: string | string[] }).Resource ?? []]
            .flat()
            .some((resource) => iamLike(resource, methodArn)),
      );
    if (matching('Deny') || !matching('Allow')) {
      state.denied += 1;
      return renderGatewayResponse('ACCESS_DENIED', undefined, answer.context ?? {});
    }
    state.usageKeys.push(answer.usageIdentifierKey);
    event.requestContext.authorizer = { principalId: answer.principalId, ...answer.context };
    const result = await (handler as Handler)(event, lambdaContext());
    const headers = Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
    );
    return { status: result.statusCode, headers, body: result.body ? JSON.parse(result.body) : undefined };
  };

  return { invoke, state, clearCache: () => cache.clear() };
};

/**
 * IAM's wildcard matching (a policy's resources, a StringLike condition): `*` spans any characters.
 */
export const iamLike = (pattern: string, arn: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(arn);
