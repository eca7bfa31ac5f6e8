import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { AppError, type ErrorCode, errorCatalog, problemType } from '../errors';
import { logger } from '../logger';
import { requestIdOf } from './observability';
import { header } from './responses';

/**
 * Largest JSON body any endpoint accepts. A full push batch (50 measurements) is about 12 KB; the
 * margin covers pretty-printing. API Gateway itself would accept up to 10 MB.
 */
export const MAX_BODY_BYTES = 64 * 1024;

/** RFC 9457 §3: problem details, sent as application/problem+json. */
export const problemResponse = (error: AppError, requestId?: string): APIGatewayProxyResult => {
  const { status, title } = errorCatalog[error.code];
  // Extensions first: the members RFC 9457 defines keep their meaning whatever an extension is called.
  const body = {
    ...error.extensions,
    type: problemType(error.code),
    title,
    status,
    detail: error.message,
    ...(error.errors ? { errors: error.errors } : {}),
    ...(requestId ? { requestId } : {}),
  };
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store', ...error.headers },
    body: JSON.stringify(body),
  };
};

/** DynamoDB answers that mean "try again shortly", not "this request is wrong". */
const retryableNames = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
  'TimeoutError',
]);
const retryableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

/** What a 5xx problem says, whatever the error was: its cause goes to the log, never to the client. */
const GENERIC_5XX_DETAIL: Partial<Record<ErrorCode, string>> &
  Record<'INTERNAL' | 'SERVICE_UNAVAILABLE', string> = {
  INTERNAL: 'An unexpected error occurred. If it persists, contact support with the requestId.',
  SERVICE_UNAVAILABLE: 'The service is temporarily unavailable. Retry after the time in Retry-After.',
};

/** Turns anything thrown into a domain error; unknown errors become a generic 500. */
export const toAppError = (error: unknown): AppError => {
  if (error instanceof AppError) return error;
  const failure = error as { name?: string; code?: string } | null | undefined;
  if (retryableNames.has(failure?.name as string) || retryableCodes.has(failure?.code as string)) {
    return new AppError('SERVICE_UNAVAILABLE', GENERIC_5XX_DETAIL.SERVICE_UNAVAILABLE, {
      headers: { 'Retry-After': '1' },
      cause: error,
    });
  }
  return new AppError('INTERNAL', GENERIC_5XX_DETAIL.INTERNAL, { cause: error });
};

/**
 * The one place where errors become HTTP responses. Register it first so its `onError` runs last
 * (middy runs `onError` in reverse order) and sees errors from every other middleware.
 * 4xx problems carry the domain detail; 5xx problems carry a fixed text and a request id, never the
 * internal message or stack, which go to the log instead.
 */
export const httpErrorHandler = (): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  onError: async (request) => {
    if (request.response && request.error === null) return;
    const error = toAppError(request.error);
    const requestId = requestIdOf(request);
    if (error.status >= 500) {
      // Name, message and stack of the cause (Powertools formats the error); never the event.
      const cause = error.cause ?? error;
      logger.error('request failed', cause instanceof Error ? cause : String(cause));
      // Stryker disable next-line LogicalOperator,StringLiteral: every 5xx code has its own text; this guards a future one
      const generic = new AppError(error.code, GENERIC_5XX_DETAIL[error.code] ?? 'Server error.', {
        headers: error.headers,
      });
      request.response = problemResponse(generic, requestId);
      return;
    }
    request.response = problemResponse(error, requestId);
  },
});

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;

type BodyEvent = Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders' | 'isBase64Encoded'> & {
  body: unknown;
};

/**
 * The body as API Gateway sends it: a string, or null when there is none. serverless-offline hands a
 * JSON body of `false` or `0` to the handler already parsed, so anything else is turned back into the
 * JSON text it came from; the request is then judged exactly as it would be on AWS.
 */
const rawBody = (body: unknown): string => {
  if (typeof body === 'string') return body;
  if (body === null || body === undefined) return '';
  try {
    return JSON.stringify(body);
  } catch {
    // Nested too deeply to write back (JSON.parse takes any depth, JSON.stringify does not).
    throw new AppError('MALFORMED_REQUEST', 'The request body cannot be read as JSON.');
  }
};

/** Content-Type, size and emptiness, each with its own clear 4xx, before the JSON is parsed. */
const guardBody = (event: BodyEvent, raw: string) => {
  const contentType = header(event, 'content-type');
  if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type must be application/json, got ${contentType ? `"${contentType.slice(0, 100)}"` : 'none'}.`,
    );
  }
  const bytes = event.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : Buffer.byteLength(raw);
  if (bytes > MAX_BODY_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `The request body must be at most ${MAX_BODY_BYTES} bytes.`);
  }
  if (raw.trim() === '') {
    throw new AppError('MALFORMED_REQUEST', 'The request body is empty; send a JSON object.');
  }
};

/**
 * The one way a request body is read: Content-Type, size and emptiness checks, then `JSON.parse` of
 * the text (base64-decoded when API Gateway says so). A function rather than only a middleware because
 * the push endpoints must authenticate the API key before they look at the body (spec 1, issue 4
 * order). Malformed JSON is a bad request (RFC 9110 §15.5.1), 400, not 415 as middy's parser answers;
 * parsing here rather than through that parser also keeps @middy/util out of every bundle (issue 11).
 */
export const readJsonBody = async (event: BodyEvent): Promise<unknown> => {
  const body = rawBody(event.body);
  guardBody(event, body);
  const text = event.isBase64Encoded === true ? Buffer.from(body, 'base64').toString('utf8') : body;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('MALFORMED_REQUEST', 'The request body is not valid JSON.');
  }
};

/**
 * Middleware form of `readJsonBody`: `event.body` is the parsed JSON in the handler. With `optional`,
 * a request without a body (none, or an empty one) reads as `{}` whatever its Content-Type, for
 * endpoints whose every field has a default (issue 13: `POST /api-keys/{id}/roll`).
 */
export const jsonBody = ({
  optional = false,
}: {
  optional?: boolean;
} = {}): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => ({
  before: async (request) => {
    const absent = optional && rawBody(request.event.body).trim() === '';
    (request.event as { body: unknown }).body = absent ? {} : await readJsonBody(request.event);
  },
});
