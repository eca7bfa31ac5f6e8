import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, run } from '../../../clients/kpi-push/main';
import { freePort } from '../../../scripts/local/processes';
import { json, startScriptedServer } from '../../support/scripted-server';

/**
 * kpi-push checks its base URL with GET /health before it sends anything: an answer that proves a
 * wrong URL is a configuration error (exit 2), an answer that may be momentary is not. Run in-process
 * against a scripted HTTP server (the real service's answers are in tests/e2e/kpi-push.test.ts).
 */
let server: Awaited<ReturnType<typeof startScriptedServer>>;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

const ROW = '{"kpiId":"01a200c7-63b3-716b-93e3-65830b252eda","kpiType":"BSC_KPI","actual":1}';

const push = async (url: string, args: string[] = [], maxTries = '1') => {
  let stderr = '';
  let stdout = '';
  const code = await run({
    argv: ['--max-tries', maxTries, ...args, '-'],
    env: { KPI_PUSH_URL: url, KPI_PUSH_API_KEY: 'skm_test' },
    stdout: { write: (text: string) => (stdout += text) } as unknown as NodeJS.WriteStream,
    stderr: { write: (text: string) => (stderr += text), isTTY: false } as unknown as NodeJS.WriteStream,
    readStdin: () => ROW,
  });
  return { code, stdout, stderr, sent: server.received.map((r) => `${r.method} ${r.url}`) };
};

const page = (status: number, text: string) => (response: import('node:http').ServerResponse) => {
  response.writeHead(status, { 'content-type': 'text/html' }).end(text);
};

describe('kpi-push: the base URL is checked before anything is sent', () => {
  it('a 404 (a URL without /api) is exit 2, with the fix in the message, and nothing is posted', async () => {
    server.answer(json(404, { message: 'Not Found' }));
    const result = await push(server.endpoint);
    expect(result.code).toBe(EXIT.USAGE);
    expect(result.stderr).toContain(
      `GET ${server.endpoint}/health answered 404 (the base URL ends with /api`,
    );
    expect(result.sent).toEqual(['GET /health']);
  });

  it('a 200 that is not the health answer (another web server) is exit 2, also for --dry-run', async () => {
    for (const flags of [[], ['--dry-run']]) {
      server.answer(page(200, '<html>Welcome</html>'));
      const result = await push(`${server.endpoint}/api`, flags);
      expect(result.code, flags.join()).toBe(EXIT.USAGE);
      expect(result.stderr).toContain("is not the strategy service's API");
      expect(result.stderr).not.toContain('ends with /api');
      expect(result.sent).toEqual(['GET /api/health']);
    }
  });

  it('a host that does not exist is exit 2', async () => {
    const result = await push('http://kpi-push-test.invalid/api');
    expect(result.code).toBe(EXIT.USAGE);
    expect(result.stderr).toBe(
      'kpi-push: the host of http://kpi-push-test.invalid/api does not exist; nothing was sent.\n',
    );
  });

  it('a healthy service gets the push; a 503 or 429 on /health proves nothing, and the push goes on', async () => {
    const stored = json(200, { count: 1, items: [{ index: 0, status: 'created' }] });
    server.answer(json(200, { status: 'ok' }), stored);
    expect((await push(`${server.endpoint}/api`)).code).toBe(EXIT.OK);
    for (const status of [503, 429]) {
      server.answer(json(status, {}), stored);
      const result = await push(`${server.endpoint}/api/`);
      expect(result.code, String(status)).toBe(EXIT.OK);
      expect(result.sent).toEqual(['GET /api/health', 'POST /api/integrations/push/measurements/batch']);
    }
  });

  it('--dry-run: an openapi.json that the service does not have is exit 2, one that fails for a moment exit 5', async () => {
    server.answer(json(200, { status: 'ok' }), json(404, {}));
    expect((await push(`${server.endpoint}/api`, ['--dry-run'])).code).toBe(EXIT.USAGE);
    server.answer(json(200, { status: 'ok' }), json(503, {}));
    const down = await push(`${server.endpoint}/api`, ['--dry-run']);
    expect(down.code).toBe(EXIT.GAVE_UP);
    expect(down.sent).toEqual(['GET /api/health', 'GET /api/openapi.json']);
  });

  it('a refused connection on the first contact is a wrong URL or port: exit 2 at once, nothing retried', async () => {
    // A port where nothing listens, as after a typo or with the local service stopped.
    const port = await freePort();
    for (const flags of [[], ['--dry-run']]) {
      const result = await push(`http://localhost:${port}/api`, flags, '6');
      expect(result.code, flags.join()).toBe(EXIT.USAGE);
      expect(result.stderr).toBe(
        `kpi-push: nothing listens at http://localhost:${port} (connection refused): check the URL and its port (KPI_PUSH_URL or --url), and that the service runs there; nothing was sent.\n`,
      );
    }
  });

  it('a connection refused after the service answered once is retried, as an outage', async () => {
    // The service answers its health check, then stops listening before the push.
    const requests: string[] = [];
    const service = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      service.close();
      service.closeAllConnections();
    });
    await new Promise<void>((done) => service.listen(0, '127.0.0.1', done));
    const { port } = service.address() as AddressInfo;
    let stderr = '';
    let stdout = '';
    const code = await run({
      argv: ['--max-tries', '2', '--json', '-'],
      env: { KPI_PUSH_URL: `http://127.0.0.1:${port}/api`, KPI_PUSH_API_KEY: 'skm_test' },
      stdout: { write: (text: string) => (stdout += text) } as unknown as NodeJS.WriteStream,
      stderr: { write: (text: string) => (stderr += text), isTTY: false } as unknown as NodeJS.WriteStream,
      readStdin: () => ROW,
    });
    expect(requests).toEqual(['GET /api/health']);
    expect(code, stderr).toBe(EXIT.GAVE_UP);
    expect(JSON.parse(stdout).batches).toEqual([
      expect.objectContaining({ outcome: 'gave-up', attempts: 2, detail: 'ECONNREFUSED after 2 tries' }),
    ]);
  });
});
