import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../lib/errors';
import { httpErrorHandler, jsonBody, MAX_BODY_BYTES, toAppError } from '../../../../lib/http/middleware';
import { json } from '../../../../lib/http/responses';
import { apiEvent, invoke, lambdaContext } from '../../../support/events';
import { captureOutput } from '../../../support/output';

const echo = middy(async (event: { body: unknown }) => json(200, { received: event.body }))
  .use(httpErrorHandler())
  .use(jsonBody());

const failing = (error: unknown) =>
  middy(async () => {
    throw error;
  }).use(httpErrorHandler());

const post = (body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
  invoke(echo, { method: 'POST', body, headers });

describe('jsonBody', () => {
  it('parses a JSON object', async () => {
    expect((await post('{"a":1}')).body).toEqual({ received: { a: 1 } });
  });

  it('400 (not 415 or 422) for malformed JSON and for an empty body, each named', async () => {
    for (const [body, detail] of [
      ['{', 'The request body is not valid JSON.'],
      ['', 'The request body is empty; send a JSON object.'],
      [' \n\t ', 'The request body is empty; send a JSON object.'],
    ]) {
      const result = await post(body as string);
      expect(result.status).toBe(400);
      expect(result.body.type).toMatch(/\/malformed-request$/);
      expect(result.body.detail).toBe(detail);
    }
  });

  it('415 only for a missing or wrong Content-Type; +json and charset are accepted', async () => {
    expect((await post('{}', {})).status).toBe(415);
    expect((await post('{}', { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await post('{}', { 'content-type': 'application/merge-patch+json' })).status).toBe(200);
    expect((await post('{}', { 'Content-Type': 'application/json; charset=utf-8' })).status).toBe(200);
    expect((await post('{}', { 'CONTENT-TYPE': 'application/json' })).status).toBe(200);
  });

  it('the 415 names the Content-Type it got, at most 100 characters of it', async () => {
    expect((await post('{}', {})).body.detail).toBe('Content-Type must be application/json, got none.');
    expect((await post('{}', { 'Content-Type': 'text/plain' })).body.detail).toBe(
      'Content-Type must be application/json, got "text/plain".',
    );
    const long = `text/${'x'.repeat(200)}`;
    expect((await post('{}', { 'Content-Type': long })).body.detail).toBe(
      `Content-Type must be application/json, got "${long.slice(0, 100)}".`,
    );
  });

  it('a body that is not a string (serverless-offline parses `false` and `0`) is judged as its JSON text', async () => {
    const send = (body: unknown) =>
      (
        echo as unknown as (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }>
      )(
        { ...apiEvent({ method: 'POST', headers: { 'Content-Type': 'application/json' } }), body },
        lambdaContext(),
      );
    for (const [body, parsed] of [
      [false, false],
      [0, 0],
      [true, true],
      [{ a: 1 }, { a: 1 }],
      [[1], [1]],
    ] as const) {
      const result = await send(body);
      expect(result.statusCode).toBe(200);
      expect(JSON.parse(result.body)).toEqual({ received: parsed });
    }
    for (const empty of [null, undefined]) {
      const result = await send(empty);
      expect(result.statusCode).toBe(400);
      expect(JSON.parse(result.body)).toMatchObject({
        type: expect.stringMatching(/\/malformed-request$/),
        detail: 'The request body is empty; send a JSON object.',
      });
    }
    // Nested deeper than JSON.stringify can write back (JSON.parse takes any depth): 400, not 500.
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const result = await send(deep);
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body)).toMatchObject({
      type: expect.stringMatching(/\/malformed-request$/),
      detail: 'The request body cannot be read as JSON.',
    });
  });

  it('decodes a base64 body; a base64 body that is not JSON is 400', async () => {
    const encoded = (text: string) =>
      (
        echo as unknown as (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }>
      )(
        {
          ...apiEvent({ method: 'POST', headers: { 'Content-Type': 'application/json' } }),
          body: Buffer.from(text).toString('base64'),
          isBase64Encoded: true,
        },
        lambdaContext(),
      );
    const ok = await encoded('{"a":"ü"}');
    expect(ok.statusCode).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ received: { a: 'ü' } });
    const notJson = await encoded('not json');
    expect(notJson.statusCode).toBe(400);
    expect(JSON.parse(notJson.body).detail).toBe('The request body is not valid JSON.');
    // Blank once decoded: named as the empty body it is, not as JSON that does not parse.
    const blank = await encoded(' \n ');
    expect(blank.statusCode).toBe(400);
    expect(JSON.parse(blank.body).detail).toBe('The request body is empty; send a JSON object.');
    // The limit applies to the decoded size (3 bytes per 4 base64 characters).
    const padded = (bytes: number) => JSON.stringify({ a: 'x'.repeat(bytes - 8) });
    expect((await encoded(padded(20_000))).statusCode).toBe(200);
    expect((await encoded(padded(MAX_BODY_BYTES - 2))).statusCode).toBe(200);
    expect((await encoded(padded(MAX_BODY_BYTES + 3))).statusCode).toBe(413);
  });

  it('400 naming the header when Content-Type is sent twice with different values; equal values are fine', async () => {
    const conflicting = await post('{}', {
      'Content-Type': 'text/plain',
      'content-type': 'application/json',
    });
    expect(conflicting.status).toBe(400);
    expect(conflicting.body.type).toMatch(/\/malformed-request$/);
    expect(conflicting.body.detail).toMatch(/content-type/i);
    const repeated = await post('{}', {
      'Content-Type': 'application/json',
      'content-type': 'application/json',
    });
    expect(repeated.status).toBe(200);
  });

  it('413 above the body limit of 64 KiB; a body of exactly the limit is read', async () => {
    const sized = (bytes: number) => JSON.stringify({ a: 'x'.repeat(bytes - 8) });
    expect(Buffer.byteLength(sized(MAX_BODY_BYTES))).toBe(65_536);
    expect((await post(sized(MAX_BODY_BYTES))).status).toBe(200);
    const above = await post(sized(MAX_BODY_BYTES + 1));
    expect(above.status).toBe(413);
    expect(above.body.detail).toBe('The request body must be at most 65536 bytes.');
    // Bytes, not characters: 'é' is two bytes in UTF-8.
    expect((await post(JSON.stringify({ a: 'é'.repeat(MAX_BODY_BYTES / 2 - 2) }))).status).toBe(413);
  });
});

describe('jsonBody({ optional: true })', () => {
  const optional = middy(async (event: { body: unknown }) => json(200, { received: event.body }))
    .use(httpErrorHandler())
    .use(jsonBody({ optional: true }));

  it('reads a request without a body as {}, whatever its Content-Type', async () => {
    expect((await invoke(optional, { method: 'POST' })).body).toEqual({ received: {} });
    expect((await invoke(optional, { method: 'POST', body: '' })).body).toEqual({ received: {} });
    expect((await invoke(optional, { method: 'POST', body: ' \n ' })).body).toEqual({ received: {} });
  });

  it('checks a body that is there like jsonBody does', async () => {
    expect((await invoke(optional, { method: 'POST', body: { a: 1 } })).body).toEqual({ received: { a: 1 } });
    expect((await invoke(optional, { method: 'POST', body: '{"a":1}' })).status).toBe(415);
    const malformed = await invoke(optional, {
      method: 'POST',
      body: '{',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
  });
});

describe('httpErrorHandler', () => {
  it('an extension cannot override a member RFC 9457 defines', async () => {
    const result = await invoke(
      failing(new AppError('CONFLICT', 'Busy.', { extensions: { status: 'revoked', type: 'x', limit: 3 } })),
      {},
    );
    expect(result.status).toBe(409);
    expect(result.body).toMatchObject({ status: 409, type: expect.stringMatching(/\/conflict$/), limit: 3 });
  });

  it('renders domain errors as RFC 9457 problem details with their detail and field errors', async () => {
    const result = await invoke(
      failing(new AppError('VALIDATION_FAILED', 'bad', { errors: [{ path: 'a', message: 'm' }] })),
      {},
    );
    expect(result.status).toBe(400);
    expect(result.headers['content-type']).toBe('application/problem+json');
    expect(result.body).toMatchObject({ status: 400, detail: 'bad', errors: [{ path: 'a', message: 'm' }] });
    expect(result.body.type).toMatch(/^https:\/\/.+\/problems\/validation-failed$/);
  });

  it('renders unknown errors as a generic 500 without internal message or stack, and logs the error', async () => {
    const { result, lines } = await captureOutput(() =>
      invoke(failing(new Error('secret table name strategy-prod leaked')), {}),
    );
    expect(result.status).toBe(500);
    const text = JSON.stringify(result.body);
    expect(text).not.toContain('strategy-prod');
    expect(text).not.toContain('at ');
    expect(result.body.requestId).toEqual(expect.any(String));
    const logged = lines.find((line) => line.message === 'request failed');
    expect(JSON.stringify(logged)).toContain('secret table name strategy-prod leaked');
  });

  it('an error after the handler answered (in an after middleware) replaces the answer', async () => {
    const handler = middy(async () => json(200, { ok: true }))
      .use(httpErrorHandler())
      .use({
        after: async () => {
          throw new AppError('CONFLICT', 'Changed meanwhile.');
        },
      });
    const result = await invoke(handler, {});
    expect(result.status).toBe(409);
    expect(result.body.detail).toBe('Changed meanwhile.');
  });

  it('renders DynamoDB throttling as 503 with Retry-After', async () => {
    const throttled = Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
      name: 'ProvisionedThroughputExceededException',
    });
    const result = await invoke(failing(throttled), {});
    expect(result.status).toBe(503);
    expect(result.headers['retry-after']).toBe('1');
    expect(JSON.stringify(result.body)).not.toContain('throughput');
  });

  it.each([
    ['ProvisionedThroughputExceededException', 400],
    ['ThrottlingException', 400],
    ['RequestLimitExceeded', 400],
    ['InternalServerError', 500],
    ['ServiceUnavailable', 503],
    ['TransactionConflictException', 400],
    ['TimeoutError', undefined],
  ])('a database error named %s (HTTP %s) means "retry shortly": 503 with Retry-After', (name, status) => {
    // As the SDK throws them: the exception's name and the answer's status in $metadata.
    const failure = Object.assign(new Error('x'), { name, $metadata: { httpStatusCode: status } });
    const error = toAppError(failure);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '1' } });
    expect(error.cause).toMatchObject({ name });
  });

  it('an exception the SDK models as retryable ($retryable) is 503 too', () => {
    const failure = Object.assign(new Error('x'), { name: 'SomeFutureException', $retryable: {} });
    expect(toAppError(failure).code).toBe('SERVICE_UNAVAILABLE');
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'])(
    'a network failure (%s) is 503 with Retry-After too',
    (code) => {
      expect(toAppError(Object.assign(new Error('x'), { code }))).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        headers: { 'Retry-After': '1' },
      });
    },
  );

  it.each([
    ['ValidationException', undefined],
    ['ConditionalCheckFailedException', undefined],
    ['Error', 'ENOENT'],
  ])('any other error (%s %s) is a 500, and an AppError stays itself', (name, code) => {
    const failure = Object.assign(new Error('x'), { name, code, $metadata: { httpStatusCode: 400 } });
    expect(toAppError(failure).code).toBe('INTERNAL');
    expect(toAppError('a string').code).toBe('INTERNAL');
    expect(toAppError(null).code).toBe('INTERNAL');
    expect(toAppError(undefined).code).toBe('INTERNAL');
    const own = new AppError('CONFLICT', 'mine');
    expect(toAppError(own)).toBe(own);
  });

  it('a 5xx answers a fixed text and the request id, and logs the cause (RFC 9457 §5: no internals)', async () => {
    const cases = [
      [
        new AppError('INTERNAL', 'table strategy-prod is missing'),
        500,
        'An unexpected error occurred. If it persists, contact support with the requestId.',
      ],
      [
        new AppError('SERVICE_UNAVAILABLE', 'node db-7 is down', { headers: { 'Retry-After': '5' } }),
        503,
        'The service is temporarily unavailable. Retry after the time in Retry-After.',
      ],
    ] as const;
    for (const [error, status, detail] of cases) {
      const { result, lines } = await captureOutput(() => invoke(failing(error), {}));
      expect(result.status).toBe(status);
      expect(result.body.detail).toBe(detail);
      expect(result.headers['cache-control']).toBe('no-store');
      expect(result.body.requestId).toEqual(expect.any(String));
      expect(JSON.stringify(result)).not.toMatch(/strategy-prod|db-7/);
      // The headers the error carries are kept (Retry-After), and the cause goes to the log only.
      if (status === 503) expect(result.headers['retry-after']).toBe('5');
      const logged = lines.find((line) => line.message === 'request failed');
      expect(JSON.stringify(logged)).toContain(error.message);
    }
  });

  it('leaves a response alone when an earlier error handler already answered (middy: error set to null)', async () => {
    const answered = { statusCode: 418, headers: {}, body: '{}' };
    const handled = middy(async () => {
      throw new Error('handled elsewhere');
    })
      .use(httpErrorHandler())
      .use({
        onError: async (request) => {
          request.response = answered;
          request.error = null as never;
        },
      });
    expect((await invoke(handled, {})).status).toBe(418);
  });

  it('renders the error over a response an earlier error handler set without marking the error handled', async () => {
    const handled = middy(async () => {
      throw new AppError('CONFLICT', 'Taken.');
    })
      .use(httpErrorHandler())
      .use({
        onError: async (request) => {
          request.response = { statusCode: 418, headers: {}, body: '{}' };
        },
      });
    const result = await invoke(handled, {});
    expect(result.status).toBe(409);
    expect(result.body.detail).toBe('Taken.');
  });

  it('a 4xx is not logged as a failure and keeps its own detail', async () => {
    const { result, lines } = await captureOutput(() =>
      invoke(failing(new AppError('CONFLICT', 'Taken.')), {}),
    );
    expect(result.body.detail).toBe('Taken.');
    expect(lines.filter((line) => line.message === 'request failed')).toEqual([]);
  });
});
