import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { logger } from '../logger';
import { STRICT_TRANSPORT_SECURITY } from './responses';

/** The response header that carries the request id (docs/operations.md, "Logs"). */
export const REQUEST_ID_HEADER = 'X-Request-Id';

interface IdentifiedRequest {
  event?: Partial<Pick<APIGatewayProxyEvent, 'requestContext'>> | undefined;
  context?: Pick<Context, 'awsRequestId'> | undefined;
}

/**
 * The one id of a request: API Gateway's `requestContext.requestId`. It is also what API Gateway puts
 * in its access log (`$context.requestId`), in its own `x-amzn-RequestId` response header and in the
 * gateway responses it renders without calling a Lambda, so one id finds the request in every log.
 * Lambda's own request id (`function_request_id` in each log line) is the fallback for a direct invoke.
 */
export const requestIdOf = ({ event, context }: IdentifiedRequest): string | undefined =>
  event?.requestContext?.requestId || context?.awsRequestId;

type Request = Parameters<
  NonNullable<MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>['before']>
>[0];

const startedAt = new WeakMap<object, number>();

const finish = (request: Request) => {
  const response = request.response;
  const requestId = requestIdOf(request);
  if (response) {
    response.headers = {
      ...response.headers,
      'Strict-Transport-Security': STRICT_TRANSPORT_SECURITY,
      ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}),
    };
  }
  // observe() is registered first, so its before has always set the start.
  const started = startedAt.get(request) ?? performance.now();
  // The access line: route template, never the path with ids or the query string.
  logger.info('request', {
    route: `${request.event.httpMethod ?? '?'} ${request.event.resource ?? '?'}`,
    status: response?.statusCode ?? 500,
    latencyMs: Math.round((performance.now() - started) * 10) / 10,
  });
  // Keys appended during the request (tenant, user, key prefix) must not leak into the next one.
  logger.resetKeys();
};

/**
 * Register first on every HTTP function: `middy(core).use(observe()).use(httpErrorHandler())…`.
 * Before: Lambda context (cold start, function name, Lambda request id) and the request id as
 * `correlation_id` on every log line. After, and after the error handler rendered a problem (middy runs
 * `onError` in reverse order, so this one runs last): `X-Request-Id` on the response and one access
 * line with route, status, latency and the tenant and key prefix the request appended. Every answer,
 * whatever produced it (a route, a page, an error), leaves with `Strict-Transport-Security`.
 */
export const observe = (): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  before: (request) => {
    startedAt.set(request, performance.now());
    // No debug sampling (Powertools' refreshSampleRateCalculation): LOG_LEVEL alone sets the level.
    logger.addContext(request.context);
    // Undefined for a request without any id: the key is then left out of the log lines.
    logger.setCorrelationId(requestIdOf(request));
  },
  after: finish,
  onError: finish,
});

/**
 * CORS for the JWT endpoints: an allowed `Origin` is echoed with `Vary: Origin`; any other
 * origin gets no CORS header, so the browser keeps the answer from the page. The preflight (OPTIONS) is
 * answered by API Gateway from the same list (serverless.yml `cors`). Credentials are not allowed: the
 * API authenticates with a bearer token, never a cookie (the login's device cookie only counts for its
 * throttle, and the pages that get it call under their own origin). Push endpoints do not use this:
 * API keys do not belong in browsers.
 */
export const cors = (
  allowedOrigins: readonly string[],
): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => {
  const allowed = new Set(allowedOrigins);
  const addHeaders = (request: Request) => {
    if (!request.response || allowed.size === 0) return;
    const headers = request.event.headers ?? {};
    const origin = Object.entries(headers).find(([name]) => name.toLowerCase() === 'origin')?.[1];
    request.response.headers = { ...request.response.headers, Vary: 'Origin' };
    if (origin && allowed.has(origin)) {
      request.response.headers = {
        ...request.response.headers,
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Expose-Headers': `${REQUEST_ID_HEADER}, WWW-Authenticate, Retry-After`,
      };
    }
  };
  return { after: addHeaders, onError: addHeaders };
};
