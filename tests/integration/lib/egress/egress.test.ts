import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress, EgressError, MAX_RESPONSE_BYTES } from '../../../../lib/egress';

/** A server on this machine that records every request and answers by path. */
const hits: string[] = [];
const headersOf: Record<string, IncomingHttpHeaders> = {};
const GZIP_BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
let server: Server;
let base: string;
let port: number;

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(request.url ?? '');
    headersOf[request.url ?? ''] = request.headers;
    const path = request.url ?? '/';
    if (path === '/silent') return; // accepts the connection and never answers
    if (path === '/late') {
      setTimeout(() => response.end('{"late":true}'), 11_000).unref();
      return;
    }
    if (path === '/redirect') {
      response.writeHead(302, { location: `${base}/inside` }).end();
      return;
    }
    if (path === '/declared-big') {
      // Declares more than the limit, sends a little and stalls: refused on the declaration.
      response.writeHead(200, { 'content-length': String(2 * MAX_RESPONSE_BYTES) });
      response.write('{"partial":');
      return;
    }
    if (path === '/repeated') {
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.setHeader('X-Mixed-Case', 'yes');
      response.end();
      return;
    }
    if (path.startsWith('/bytes/')) {
      response.end(Buffer.alloc(Number(path.slice('/bytes/'.length)), 0x61));
      return;
    }
    if (path === '/chunked-2.5mib') {
      // 2.5 MiB without a Content-Length, in 64 KiB chunks as a slow source sends them.
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let written = 0;
      const next = () => {
        if (response.destroyed) return;
        if (written >= 2.5 * 1024 * 1024) {
          response.end();
          return;
        }
        written += chunk.length;
        response.write(chunk, () => setImmediate(next));
      };
      response.writeHead(200, { 'content-type': 'application/json' });
      next();
      return;
    }
    if (path === '/gzip-bomb') {
      // 64 MiB of zeros as a few KiB of gzip: the guard never inflates what it reads.
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(GZIP_BOMB.length),
      });
      response.end(GZIP_BOMB);
      return;
    }
    if (path === '/chunked-big') {
      // No Content-Length: the limit must hold while reading.
      response.write(Buffer.alloc(MAX_RESPONSE_BYTES, 0x61));
      response.end(Buffer.alloc(10, 0x61));
      return;
    }
    response.setHeader('content-type', 'application/json');
    response.end('{"value":42}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A resolver that answers every name with these addresses, as a public DNS name pointing inwards would. */
const resolvingTo =
  (...addresses: string[]): LookupFunction =>
  (_hostname, _options, callback) =>
    (callback as unknown as (e: null, all: { address: string; family: number }[]) => void)(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

const failure = async (promise: Promise<unknown>): Promise<EgressError> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EgressError);
  return error as EgressError;
};

const get = (url: string, timeoutMs = 5000) => ({ url, method: 'GET' as const, timeoutMs });

describe('the egress guard', () => {
  it('refuses at connect time a public-looking name that resolves to 127.0.0.1 on a deployed stage’s rules, and sends nothing', async () => {
    // 127.0.0.1.nip.io and localtest.me resolve to 127.0.0.1; this resolver answers as they do.
    const deployed = createEgress({ allowLoopback: false, lookup: resolvingTo('127.0.0.1') });
    const before = hits.length;
    for (const name of ['127.0.0.1.nip.io', 'localtest.me']) {
      const error = await failure(deployed.send(get(`http://${name}:${port}/value`)));
      expect(error.kind).toBe('refused');
      // Only that: no address, port or timing that would map the network behind the service.
      expect(error.message).toBe('refused by egress rules');
    }
    expect(hits.length).toBe(before);
    // The same name on the local stage's rules reaches the server: the refusal was the address's.
    const local = createEgress({ allowLoopback: true, lookup: resolvingTo('127.0.0.1') });
    const answer = await local.send(get(`http://localtest.me:${port}/value`));
    expect(answer.status).toBe(200);
    expect(JSON.parse(Buffer.from(answer.body).toString('utf8'))).toEqual({ value: 42 });
    expect(hits.at(-1)).toBe('/value');
  });

  it('refuses the system resolver’s localhost, with or without a trailing dot, on deployed rules', async () => {
    const deployed = createEgress({ allowLoopback: false });
    const before = hits.length;
    for (const url of [
      `http://localhost:${port}/`,
      `http://localhost.:${port}/`,
      `${base}/`,
      `http://[::1]:${port}/`,
    ]) {
      expect((await failure(deployed.send(get(url)))).kind, url).toBe('refused');
    }
    expect(hits.length).toBe(before);
  });

  it('refuses a name when any of its addresses is refused, even if another is public', async () => {
    const deployed = createEgress({ allowLoopback: false, lookup: resolvingTo('93.184.216.34', '10.0.0.7') });
    expect((await failure(deployed.send(get('https://mixed.example/')))).kind).toBe('refused');
    const inward6 = createEgress({ allowLoopback: false, lookup: resolvingTo('64:ff9b::a9fe:a9fe') });
    expect((await failure(inward6.send(get('https://nat64.example/')))).kind).toBe('refused');
  });

  it('refuses a name that resolves to no address at all', async () => {
    const nothing = createEgress({ allowLoopback: true, lookup: resolvingTo() });
    const error = await failure(nothing.send(get(`http://empty.example:${port}/value`)));
    expect(error.kind).toBe('refused');
    expect(error.name).toBe('EgressError');
  });

  it('refuses URLs with credentials or another scheme before connecting', async () => {
    const local = createEgress({ allowLoopback: true });
    const before = hits.length;
    for (const credentials of ['user:pw@', 'user@', ':pw@']) {
      const url = `http://${credentials}127.0.0.1:${port}/`;
      expect((await failure(local.send(get(url)))).kind, url).toBe('refused');
    }
    expect((await failure(local.send(get('file:///etc/passwd')))).kind).toBe('refused');
    expect(hits.length).toBe(before);
  });

  it('never follows a redirect: the 3xx is the answer', async () => {
    const local = createEgress({ allowLoopback: true });
    const answer = await local.send(get(`${base}/redirect`));
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe(`${base}/inside`);
    expect(hits).not.toContain('/inside');
  });

  it('reads at most 1 MiB of an answer, with or without a Content-Length', async () => {
    const local = createEgress({ allowLoopback: true });
    const exact = await local.send(get(`${base}/bytes/${MAX_RESPONSE_BYTES}`));
    expect(exact.body.byteLength).toBe(MAX_RESPONSE_BYTES);
    expect((await failure(local.send(get(`${base}/bytes/${MAX_RESPONSE_BYTES + 1}`)))).kind).toBe(
      'too_large',
    );
    expect((await failure(local.send(get(`${base}/chunked-big`)))).kind).toBe('too_large');
    const smaller = await failure(local.send({ ...get(`${base}/bytes/101`), maxBytes: 100 }));
    expect(smaller.kind).toBe('too_large');
  });

  it('refuses a 2.5 MiB answer sent chunked, without a Content-Length, as too large', async () => {
    const local = createEgress({ allowLoopback: true });
    expect((await failure(local.send(get(`${base}/chunked-2.5mib`)))).kind).toBe('too_large');
    // With a smaller limit of the caller's, the same.
    expect((await failure(local.send({ ...get(`${base}/chunked-2.5mib`), maxBytes: 64 * 1024 }))).kind).toBe(
      'too_large',
    );
  });

  it('never inflates an answer (a gzip bomb is its compressed bytes) and asks for no encoding', async () => {
    const local = createEgress({ allowLoopback: true });
    const answer = await local.send(get(`${base}/gzip-bomb`));
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.body.byteLength).toBe(GZIP_BOMB.length);
    expect(GZIP_BOMB.length).toBeLessThan(MAX_RESPONSE_BYTES);
    expect(headersOf['/gzip-bomb']?.['accept-encoding']).toBeUndefined();
  });

  it('refuses every numeric spelling of a loopback or metadata address on deployed rules, before connecting', async () => {
    const deployed = createEgress({ allowLoopback: false, lookup: resolvingTo('93.184.216.34') });
    const before = hits.length;
    for (const host of [
      '0x7f.1',
      '2130706433',
      '0177.0.0.1',
      '0x7f000001',
      '127.1',
      '127.0.0.1.',
      '[::ffff:7f00:1]',
      '[::ffff:127.0.0.1]',
      '0xA9.0xFE.0xA9.0xFE',
      '[64:ff9b::a9fe:a9fe]',
    ]) {
      const url = `http://${host}:${port}/value`;
      expect((await failure(deployed.send(get(url)))).kind, url).toBe('refused');
    }
    expect(hits.length).toBe(before);
  });

  it('refuses an answer on its declared size, without waiting for the bytes', async () => {
    const local = createEgress({ allowLoopback: true });
    // The server never sends the rest: reading on would end in the time-out instead.
    expect((await failure(local.send(get(`${base}/declared-big`, 5000)))).kind).toBe('too_large');
  });

  it('gives header names in lower case and a repeated header’s values joined', async () => {
    const local = createEgress({ allowLoopback: true });
    const answer = await local.send(get(`${base}/repeated`));
    expect(answer.headers['set-cookie']).toBe('a=1, b=2');
    expect(answer.headers['x-mixed-case']).toBe('yes');
  });

  it('reads no body at all with maxBytes 0, whatever its size', async () => {
    const local = createEgress({ allowLoopback: true });
    const answer = await local.send({ ...get(`${base}/bytes/${4 * MAX_RESPONSE_BYTES}`), maxBytes: 0 });
    expect(answer.status).toBe(200);
    expect(answer.body.byteLength).toBe(0);
  });

  it('ends a request at the caller’s time-out, and at 10 s whatever the caller asked', async () => {
    const local = createEgress({ allowLoopback: true });
    expect((await failure(local.send(get(`${base}/silent`, 300)))).kind).toBe('timeout');
    // The server answers after 11 s: a time-out of a minute still ends at the guard's 10 s.
    expect((await failure(local.send(get(`${base}/late`, 60_000)))).kind).toBe('timeout');
  });

  it('tells a refused connection and an unknown name apart from a refusal by the rules', async () => {
    const local = createEgress({ allowLoopback: true });
    const closed = await failure(local.send(get('http://127.0.0.1:1/')));
    expect(closed.kind).toBe('connection');
    expect(closed.message).not.toMatch(/127|:1\b|ECONN/);
    const unknown = createEgress({
      allowLoopback: false,
      lookup: (_host, _options, callback) =>
        callback(
          Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' }),
          '',
          0,
        ),
    });
    const notFound = await failure(unknown.send(get('https://nowhere.invalid/')));
    expect(notFound.kind).toBe('connection');
    expect(notFound.message).not.toMatch(/nowhere/);
  });

  it('sends the method, headers and body it is given', async () => {
    const received: { method?: string; header?: string; body?: string } = {};
    const echo = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        Object.assign(received, {
          method: request.method,
          header: request.headers['x-probe'],
          body: Buffer.concat(chunks).toString('utf8'),
        });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const local = createEgress({ allowLoopback: true });
      const answer = await local.send({
        url: `http://127.0.0.1:${(echo.address() as AddressInfo).port}/in`,
        method: 'POST',
        headers: { 'x-probe': 'yes', 'content-type': 'application/json' },
        body: '{"a":1}',
        timeoutMs: 5000,
      });
      expect(answer.status).toBe(204);
      expect(received).toEqual({ method: 'POST', header: 'yes', body: '{"a":1}' });
    } finally {
      await new Promise((resolve) => echo.close(resolve));
    }
  });
});
