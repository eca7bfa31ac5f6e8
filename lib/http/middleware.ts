import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod/mini';
import { isTransientDbFailure } from '../db/errors';
import { keyRefSchema } from '../domain/api-key';
import { AppError, type ErrorCode, errorCatalog, problemType } from '../errors';
import { logger } from '../logger';
import { requestIdOf } from './observability';
import { header, JSON_SECURITY_HEADERS } from './responses';

/**
 * Largest JSON body any endpoint accepts. A full push batch (50 measurements) is about 12 KB; the
 * margin covers pretty-printing. API Gateway itself would accept up to 10 MB.
 */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * RFC 9457 problem details, as `problemResponse` renders them. The extension members are those some
 * problem types carry; each response of the OpenAPI document narrows `type` and `status`.
 */
export const problemSchema = z
  .object({
    type: z.url().check(z.describe('Stable problem type URI; each response lists the ones it may carry.')),
    title: z.string().check(z.describe('Short summary of the problem type.')),
    status: z.int().check(z.describe('The HTTP status.')),
    detail: z
      .string()
      .check(z.describe('What went wrong in this request, for humans. 5xx answers carry a fixed text.')),
    requestId: z.optional(z.string().check(z.describe('Quote it when contacting support.'))),
    errors: z.optional(
      z
        .array(z.object({ path: z.string(), message: z.string() }))
        .check(z.describe('For `validation-failed`: every offending field, e.g. `measurements[3].actual`.')),
    ),
    limit: z.optional(
      z
        .int()
        .check(
          z.describe(
            'For `api-key-limit-reached`, `pull-integration-limit-reached` and `kpi-limit-reached`: the plan’s maximum of active keys, of integrations or of live KPIs; for `webhook-limit-reached`: the maximum of endpoints.',
          ),
        ),
    ),
    plan: z.optional(
      z
        .string()
        .check(
          z.describe(
            'For `api-key-limit-reached`, `pull-integration-limit-reached` and `kpi-limit-reached`: the tenant’s plan.',
          ),
        ),
    ),
    feature: z.optional(
      z.string().check(z.describe('For `feature-not-enabled`: the plan feature that is missing.')),
    ),
    missingKpiIds: z.optional(
      z
        .array(z.string())
        .check(
          z.describe(
            'For a push’s `not-found`: every `kpiId` that is not a KPI of the key’s tenant with that `kpiType`.',
          ),
        ),
    ),
    outOfScopeKpiIds: z.optional(
      z
        .array(z.string())
        .check(z.describe('For `kpi-outside-key-scope`: every `kpiId` of the push outside the key’s scope.')),
    ),
    archivedKpiIds: z.optional(
      z
        .array(z.string())
        .check(z.describe('For `kpi-archived`: every archived KPI the push, pull or binding names.')),
    ),
    kpiCount: z.optional(
      z.int().check(z.describe('For `cycle-has-kpis`: how many KPIs (live and archived) the cycle has.')),
    ),
    replacedBy: z
      .optional(keyRefSchema)
      .check(z.describe('For `api-key-already-rolled`: the key that replaced it, the one to roll instead.')),
    keyStatus: z.optional(
      z.enum(['revoked', 'expired']).check(z.describe('For `api-key-not-active`: the key’s status.')),
    ),
    sourceIp: z.optional(
      z
        .nullable(z.string())
        .check(
          z.describe(
            'For `source-not-allowed`: the source address of the request as the service saw it (null: none known).',
          ),
        ),
    ),
  })
  .check(
    z.meta({
      id: 'Problem',
      description:
        'RFC 9457 problem details (`application/problem+json`). `type` is a stable identifier to switch on.',
    }),
  );

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
    headers: {
      'Content-Type': 'application/problem+json',
      'Cache-Control': 'no-store',
      ...JSON_SECURITY_HEADERS,
      ...error.headers,
    },
    body: JSON.stringify(body),
  };
};

/** What a 5xx problem says, whatever the error was: its cause goes to the log, never to the client. */
const GENERIC_5XX_DETAIL: Partial<Record<ErrorCode, string>> &
  Record<'INTERNAL' | 'SERVICE_UNAVAILABLE', string> = {
  INTERNAL: 'An unexpected error occurred. If it persists, contact support with the requestId.',
  SERVICE_UNAVAILABLE: 'The service is temporarily unavailable. Retry after the time in Retry-After.',
};

/** Turns anything thrown into a domain error; unknown errors become a generic 500. */
export const toAppError = (error: unknown): AppError => {
  if (error instanceof AppError) return error;
  if (isTransientDbFailure(error)) {
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

/** The body's size in bytes, checked before anything reads it: 413 over `maxBytes`. */
export const assertBodySize = (event: BodyEvent, maxBytes: number): void => {
  const raw = rawBody(event.body);
  const bytes = event.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : Buffer.byteLength(raw);
  if (bytes > maxBytes) {
    throw new AppError('PAYLOAD_TOO_LARGE', `The request body must be at most ${maxBytes} bytes.`);
  }
};

/**
 * The body's bytes as the client sent them, for a signature over the raw body: API Gateway passes a
 * text body as a string (UTF-8, as sent) and a binary one base64-encoded.
 */
export const rawBodyBytes = (event: BodyEvent): Buffer => {
  const raw = rawBody(event.body);
  return event.isBase64Encoded === true ? Buffer.from(raw, 'base64') : Buffer.from(raw);
};

/** middy's parser, with its Content-Type check; its answers are mapped to the service's below. */
const parser = httpJsonBodyParser();

/** How the parser says what is wrong (`@middy/util` createError: status 415 and a message). */
const parserRefusal = (error: unknown) => {
  const { statusCode, message } = (error ?? {}) as { statusCode?: number; message?: string };
  // Stryker disable next-line ConditionalExpression: the parser throws only its 415s; this guards a future version
  return statusCode === 415 ? message : undefined;
};

/**
 * The one way a request body is read: @middy/http-json-body-parser checks the Content-Type and parses
 * the text (base64-decoded when API Gateway says so). Around it, what the service settles differently:
 * - the size is checked first (`maxBytes`, 64 KiB unless the route declares more), 413, so an oversized
 *   body is never parsed;
 * - Content-Type is found whatever its spelling (API Gateway REST passes headers as the client sent
 *   them; the parser looks for two spellings) and must be one value (400 when sent twice, differently);
 * - malformed JSON and an empty body are 400 (RFC 9110 §15.5.1), where the parser answers 415; 415
 *   stays for a wrong or missing Content-Type, naming what was sent.
 * A function, and not only a middleware, because a push authenticates its key before its body is
 * judged (the push pipeline calls it after the key check); `jsonBody()` is the middleware form.
 */
export const readJsonBody = async (event: BodyEvent, maxBytes = MAX_BODY_BYTES): Promise<unknown> => {
  const raw = rawBody(event.body);
  assertBodySize(event, maxBytes);
  const contentType = header(event, 'content-type');
  const parsed = {
    event: {
      // Media types are case-insensitive (RFC 9110 §8.3.1); the parser's pattern is not.
      headers: contentType === undefined ? {} : { 'content-type': contentType.toLowerCase() },
      body: raw,
      isBase64Encoded: event.isBase64Encoded === true,
    },
  };
  try {
    await parser.before?.(parsed as never);
  } catch (error) {
    const refusal = parserRefusal(error);
    if (refusal === 'Unsupported Media Type') {
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Type must be application/json, got ${contentType ? `"${contentType.slice(0, 100)}"` : 'none'}.`,
      );
    }
    // Stryker disable next-line ConditionalExpression: the parser throws only its 415s; this guards a future version
    if (refusal === undefined) throw error;
    const text = event.isBase64Encoded === true ? Buffer.from(raw, 'base64').toString() : raw;
    throw new AppError(
      'MALFORMED_REQUEST',
      text.trim() === ''
        ? 'The request body is empty; send a JSON object.'
        : 'The request body is not valid JSON.',
    );
  }
  return parsed.event.body;
};

/**
 * Middleware form of `readJsonBody`: `event.body` is the parsed JSON in the handler. With `optional`,
 * a request without a body (none, or an empty one) reads as `{}` whatever its Content-Type, for
 * endpoints whose every field has a default (`POST /api-keys/{id}/roll`).
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
