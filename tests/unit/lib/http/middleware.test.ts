import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../lib/errors';
import { httpErrorHandler, jsonBody } from '../../../../lib/http/middleware';
import { json } from '../../../../lib/http/responses';
import { invoke } from '../../../support/events';

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

  it('400 (not 415 or 422) for malformed JSON and for an empty body', async () => {
    for (const body of ['{', '', '  ']) {
      const result = await post(body);
      expect(result.status).toBe(400);
      expect(result.body.type).toMatch(/\/malformed-request$/);
    }
  });

  it('415 only for a missing or wrong Content-Type; +json and charset are accepted', async () => {
    expect((await post('{}', {})).status).toBe(415);
    expect((await post('{}', { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await post('{}', { 'content-type': 'application/merge-patch+json' })).status).toBe(200);
    expect((await post('{}', { 'Content-Type': 'application/json; charset=utf-8' })).status).toBe(200);
    expect((await post('{}', { 'CONTENT-TYPE': 'application/json' })).status).toBe(200);
  });

  it('413 above the body limit', async () => {
    expect((await post(JSON.stringify({ a: 'x'.repeat(70_000) }))).status).toBe(413);
  });
});

describe('httpErrorHandler', () => {
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

  it('renders unknown errors as a generic 500 without internal message or stack', async () => {
    const result = await invoke(failing(new Error('secret table name strategy-prod leaked')), {});
    expect(result.status).toBe(500);
    const text = JSON.stringify(result.body);
    expect(text).not.toContain('strategy-prod');
    expect(text).not.toContain('at ');
    expect(result.body.requestId).toEqual(expect.any(String));
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
});
