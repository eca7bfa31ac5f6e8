/**
 * Lambda events and contexts as API Gateway (REST, v1) and Lambda deliver them, for invoking handlers
 * in-process: the tests and the benchmark; no function imports this.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

export interface EventInput {
  method?: string;
  path?: string;
  resource?: string;
  headers?: Record<string, string>;
  /** A list is a parameter given several times (`?type=a&type=b`): API Gateway's single value is the last. */
  query?: Record<string, string | string[]>;
  pathParameters?: Record<string, string>;
  /** An object is sent as JSON with `Content-Type: application/json`; a string is sent as is. */
  body?: unknown;
  /** The context a Lambda authorizer returned (the push routes' verdict); none by default. */
  authorizer?: Record<string, unknown> | null;
  /** The client's address (`requestContext.identity.sourceIp`), which login counts failures by. */
  sourceIp?: string;
}

/** An API Gateway REST (v1) proxy event, as API Gateway and serverless-offline deliver it. */
export const apiEvent = ({
  method = 'GET',
  path = '/',
  resource = path,
  headers = {},
  query,
  pathParameters,
  body,
  authorizer = null,
  sourceIp = '127.0.0.1',
}: EventInput = {}): APIGatewayProxyEvent => {
  const isJson = body !== undefined && typeof body !== 'string';
  const allHeaders = isJson ? { 'Content-Type': 'application/json', ...headers } : headers;
  return {
    httpMethod: method,
    path,
    resource,
    headers: allHeaders,
    multiValueHeaders: Object.fromEntries(Object.entries(allHeaders).map(([k, v]) => [k, [v]])),
    queryStringParameters: query
      ? Object.fromEntries(
          Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? (v.at(-1) ?? '') : v]),
        )
      : null,
    multiValueQueryStringParameters: query
      ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]))
      : null,
    pathParameters: pathParameters ?? null,
    stageVariables: null,
    body: body === undefined ? null : isJson ? JSON.stringify(body) : (body as string),
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'test',
      authorizer,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      // API Gateway copies the client's User-Agent header here; the source is the TCP peer.
      identity: {
        sourceIp,
        userAgent:
          Object.entries(allHeaders).find(([name]) => name.toLowerCase() === 'user-agent')?.[1] ?? 'vitest',
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path,
      stage: 'test',
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'test',
      resourcePath: resource,
    },
  };
};

/**
 * A Lambda context. `remainingMs` is constant: 60 s by default, the local stage's timeout
 * (serverless.yml `lambdaTimeout`), because middy aborts a handler that outlives it (503) and a loaded
 * 2-core machine can take 10 s over a login. Tests of the deadline pass a short one.
 */
export const lambdaContext = ({ remainingMs = 60_000 }: { remainingMs?: number } = {}): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'test',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:test',
  memoryLimitInMB: '1024',
  awsRequestId: randomUUID(),
  logGroupName: '/aws/lambda/test',
  logStreamName: 'test',
  getRemainingTimeInMillis: () => remainingMs,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});
