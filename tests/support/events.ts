import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

export interface EventInput {
  method?: string;
  path?: string;
  resource?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  pathParameters?: Record<string, string>;
  /** An object is sent as JSON with `Content-Type: application/json`; a string is sent as is. */
  body?: unknown;
  /** The context a Lambda authorizer returned (the push routes' verdict); none by default. */
  authorizer?: Record<string, unknown> | null;
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
}: EventInput = {}): APIGatewayProxyEvent => {
  const isJson = body !== undefined && typeof body !== 'string';
  const allHeaders = isJson ? { 'Content-Type': 'application/json', ...headers } : headers;
  return {
    httpMethod: method,
    path,
    resource,
    headers: allHeaders,
    multiValueHeaders: Object.fromEntries(Object.entries(allHeaders).map(([k, v]) => [k, [v]])),
    queryStringParameters: query ?? null,
    multiValueQueryStringParameters: query
      ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]]))
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
      identity: {
        sourceIp: '127.0.0.1',
        userAgent: 'vitest',
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

export type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface InvokeResult {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Invokes a handler like API Gateway does and parses the JSON answer. */
export const invoke = async (
  handler: unknown,
  input: EventInput,
  context: Parameters<typeof lambdaContext>[0] = {},
): Promise<InvokeResult> => {
  const result = await (handler as Handler)(apiEvent(input), lambdaContext(context));
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  return { status: result.statusCode, headers, body: result.body ? JSON.parse(result.body) : undefined };
};
