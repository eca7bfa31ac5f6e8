import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress } from '../../../../lib/egress';
import { newWebhookSecret } from '../../../../lib/webhooks/secrets';
import { isSuccess, sendAttempt } from '../../../../lib/webhooks/send';

/**
 * One attempt against a receiver on this machine that answers with the status its path names
 * (`/status/302`) and records the headers it was sent; `/silent` never answers.
 */
let server: Server;
let base: string;
const received: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    received.push(request.headers);
    if (request.url === '/silent') return;
    request.resume();
    request.on('end', () => response.writeHead(Number(request.url?.split('/')[2] ?? 200)).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const egress = createEgress({ allowLoopback: true });
const attemptTo = (path: string, timeoutMs?: number) =>
  sendAttempt({
    egress,
    url: `${base}${path}`,
    id: 'msg_1',
    payload: '{"type":"webhook.test"}',
    secret: newWebhookSecret(),
    attempt: 1,
    at: Date.now(),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });

describe('one webhook attempt', () => {
  it('counts 2xx as success, and nothing else', () => {
    const attempt = (httpStatus: number | null) => ({
      attempt: 1,
      at: new Date().toISOString(),
      durationMs: 1,
      httpStatus,
      error: null,
    });
    expect([200, 204, 299].map((status) => isSuccess(attempt(status)))).toEqual([true, true, true]);
    expect([null, 199, 300, 302, 400, 500].map((status) => isSuccess(attempt(status)))).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('names a 3xx a redirect it did not follow, and records any other status as it is', async () => {
    const answers = await Promise.all(
      ['/status/300', '/status/399', '/status/400', '/status/204'].map((p) => attemptTo(p)),
    );
    expect(answers.map(({ httpStatus, error }) => [httpStatus, error])).toEqual([
      [300, 'redirect'],
      [399, 'redirect'],
      [400, null],
      [204, null],
    ]);
  });

  it('sends JSON with the service’s User-Agent and the Standard Webhooks headers', async () => {
    received.length = 0;
    await attemptTo('/status/204');
    expect(received[0]).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'strategy-service-webhooks/1',
      'webhook-id': 'msg_1',
      'webhook-signature': expect.stringMatching(/^v1,/),
    });
  });

  it('records a time-out with the time it waited, at most the time the attempt took', async () => {
    const started = performance.now();
    const result = await attemptTo('/silent', 200);
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ httpStatus: null, error: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(150);
    expect(result.durationMs).toBeLessThanOrEqual(Math.ceil(elapsed));
  });

  it('lets a failure that is not the egress guard’s through: a URL that is none', async () => {
    await expect(
      sendAttempt({
        egress,
        url: 'not a url',
        id: 'msg_1',
        payload: '{}',
        secret: newWebhookSecret(),
        attempt: 1,
        at: Date.now(),
      }),
    ).rejects.toBeInstanceOf(TypeError);
  });
});
