import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../lib/errors';
import { httpErrorHandler } from '../../../../lib/http/middleware';
import { cors, observe, requestIdOf } from '../../../../lib/http/observability';
import { htmlPage } from '../../../../lib/http/page';
import { json } from '../../../../lib/http/responses';
import { apiEvent, type Handler, lambdaContext } from '../../../support/events';
import { captureOutput } from '../../../support/output';

/** A handler wired like the JWT functions are (functions/get-kpi.ts): observe, CORS, error handler. */
const wired = (core: () => Promise<APIGatewayProxyResult>, origins: readonly string[] = []) =>
  middy<APIGatewayProxyEvent, APIGatewayProxyResult>(core)
    .use(observe())
    .use(cors(origins))
    .use(httpErrorHandler()) as unknown as Handler;

const ok = async () => json(200, { ok: true });
const fails = async (): Promise<APIGatewayProxyResult> => {
  throw new AppError('CONFLICT', 'Taken.');
};

describe('request id (docs/operations.md: finding a request)', () => {
  it("is API Gateway's requestId, or Lambda's request id for a direct invoke", () => {
    expect(
      requestIdOf({
        event: { requestContext: { requestId: 'gw' } as never },
        context: { awsRequestId: 'fn' },
      }),
    ).toBe('gw');
    expect(
      requestIdOf({ event: { requestContext: { requestId: '' } as never }, context: { awsRequestId: 'fn' } }),
    ).toBe('fn');
    expect(requestIdOf({ event: {}, context: { awsRequestId: 'fn' } })).toBe('fn');
    expect(requestIdOf({})).toBeUndefined();
  });

  it('is sent as X-Request-Id on answers and problems, and names the access line of each', async () => {
    for (const [core, status] of [
      [ok, 200],
      [fails, 409],
    ] as const) {
      const event = apiEvent({ method: 'POST', path: '/api/things/1', resource: '/api/things/{id}' });
      const { result, lines } = await captureOutput(() => wired(core)(event, lambdaContext()));
      expect(result.statusCode).toBe(status);
      expect(result.headers?.['X-Request-Id']).toBe(event.requestContext.requestId);
      const access = lines.filter((line) => line.message === 'request');
      expect(access).toHaveLength(1);
      expect(access[0]).toMatchObject({
        route: 'POST /api/things/{id}',
        status,
        correlation_id: event.requestContext.requestId,
        latencyMs: expect.any(Number),
      });
      if (status === 409) expect(JSON.parse(result.body).requestId).toBe(event.requestContext.requestId);
    }
  });

  it('is left out, header and log key, when a request has none', async () => {
    const event = apiEvent({});
    (event.requestContext as { requestId?: string }).requestId = undefined;
    const context = { ...lambdaContext(), awsRequestId: '' };
    const { result, lines } = await captureOutput(() => wired(ok)(event, context));
    expect(result.statusCode).toBe(200);
    expect(result.headers).not.toHaveProperty('X-Request-Id');
    const access = lines.find((line) => line.message === 'request');
    expect(access).toBeDefined();
    expect(access).not.toHaveProperty('correlation_id');
  });

  it('a direct invocation without an event is answered, and its access line names no route', async () => {
    const { result, lines } = await captureOutput(() =>
      wired(ok, ['https://app.example.test'])(undefined as never, lambdaContext()),
    );
    expect(result.statusCode).toBe(200);
    expect(lines.find((line) => line.message === 'request')).toMatchObject({ route: '? ?', status: 200 });
  });

  it('an error no handler rendered is logged as a 500 and still thrown to Lambda', async () => {
    const bare = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(fails).use(observe());
    const { result, lines } = await captureOutput(() =>
      bare(apiEvent({}), lambdaContext()).then(
        () => 'answered',
        (error: unknown) => error,
      ),
    );
    expect(result).toMatchObject({ code: 'CONFLICT' });
    expect(lines.find((line) => line.message === 'request')).toMatchObject({ status: 500 });
  });

  it('the access line gives the latency in milliseconds, to a tenth', async () => {
    const slow = async () => {
      await new Promise((resolve) => setTimeout(resolve, 40));
      return json(200, {});
    };
    const before = performance.now();
    const { lines } = await captureOutput(() => wired(slow)(apiEvent({}), lambdaContext()));
    const elapsed = performance.now() - before;
    const { latencyMs } = lines.find((line) => line.message === 'request') as { latencyMs: number };
    // At least the handler's own wait, at most what the caller saw: the unit is milliseconds.
    expect(latencyMs).toBeGreaterThanOrEqual(39);
    expect(latencyMs).toBeLessThanOrEqual(elapsed + 0.1);
    expect(Math.abs(latencyMs * 10 - Math.round(latencyMs * 10))).toBeLessThan(1e-9);
  });

  it('keys a request appended do not reach the next request', async () => {
    const appending = async () => {
      const { logger } = await import('../../../../lib/logger');
      logger.appendKeys({ tenantId: 'tenant-a' });
      return json(200, {});
    };
    const { lines } = await captureOutput(async () => {
      await wired(appending)(apiEvent({}), lambdaContext());
      await wired(ok)(apiEvent({}), lambdaContext());
    });
    const access = lines.filter((line) => line.message === 'request');
    expect(access.map((line) => line.tenantId)).toEqual(['tenant-a', undefined]);
  });
});

describe('CORS on the JWT endpoints', () => {
  const origins = ['https://app.example.test'];

  it('echoes an allowed Origin, whatever the case of the header name, with Vary and the exposed headers', async () => {
    for (const [core, name] of [
      [ok, 'Origin'],
      [fails, 'origin'],
    ] as const) {
      const result = await wired(core, origins)(
        apiEvent({ headers: { [name]: 'https://app.example.test' } }),
        lambdaContext(),
      );
      expect(result.headers).toMatchObject({
        Vary: 'Origin',
        'Access-Control-Allow-Origin': 'https://app.example.test',
        'Access-Control-Expose-Headers': 'X-Request-Id, WWW-Authenticate, Retry-After',
      });
      expect(result.headers).not.toHaveProperty('Access-Control-Allow-Credentials');
    }
  });

  it('gives another origin, or none, no CORS header but still Vary: Origin (caches keep answers apart)', async () => {
    for (const headers of [
      { Origin: 'https://evil.example.test' },
      {},
      // Only the Origin header counts, not another header that happens to hold an allowed origin.
      { Referer: 'https://app.example.test', Origin: 'https://evil.example.test' },
    ] as Record<string, string>[]) {
      const result = await wired(ok, origins)(apiEvent({ headers }), lambdaContext());
      expect(result.headers?.Vary).toBe('Origin');
      expect(result.headers).not.toHaveProperty('Access-Control-Allow-Origin');
      expect(result.headers).not.toHaveProperty('Access-Control-Expose-Headers');
    }
  });

  it('adds nothing at all when no origin is configured', async () => {
    const result = await wired(ok, [])(
      apiEvent({ headers: { Origin: 'https://app.example.test' } }),
      lambdaContext(),
    );
    expect(result.headers).not.toHaveProperty('Vary');
    expect(result.headers).not.toHaveProperty('Access-Control-Allow-Origin');
  });
});

describe('web pages', () => {
  it('are HTML with the CSP given, never framed, sniffed, cached or sent a referrer', () => {
    expect(htmlPage({ html: '<!doctype html>', contentSecurityPolicy: "default-src 'none'" })).toEqual({
      statusCode: 200,
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': "default-src 'none'",
        'X-Content-Type-Options': 'nosniff',
        'X-Frame-Options': 'DENY',
        'Referrer-Policy': 'no-referrer',
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cache-Control': 'no-store',
      },
      body: '<!doctype html>',
    });
  });
});
