import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTokenCache,
  fetchSource,
  MAX_ANSWER_BYTES,
  MAX_TOKEN_ANSWER_BYTES,
  MAX_TOKEN_LIFETIME_MS,
  type Source,
} from '../../../../lib/pull/fetch';
import { egress } from '../../../../lib/runtime';
import { freePort } from '../../../../scripts/local/processes';
import { type PullSource, startPullSource } from '../../../support/pull-source';

/**
 * One fetch of a source through the service's egress, against a real HTTP source of the test: what a
 * failure is classed as and says, and the credentials a source receives when a secret is missing.
 */
let source: PullSource;
beforeAll(async () => {
  source = await startPullSource();
});
afterAll(() => source.close());

const deps = (now?: () => number) => ({ egress, tokens: createTokenCache(), ...(now ? { now } : {}) });
const sourceAt = (url: string, auth: Source['auth'] = { type: 'none' }): Source => ({
  id: 'i1',
  url,
  headers: {},
  auth,
});

describe('a fetch that fails before an answer', () => {
  it('is a connection failure for an address the egress rules refuse, saying so', async () => {
    const result = await fetchSource(deps(), sourceAt('http://169.254.169.254/latest/meta-data'), {});
    expect(result).toMatchObject({ ok: false, errorClass: 'connection', error: 'refused by egress rules' });
  });

  it('is an auth failure when the token endpoint cannot be reached, naming the token request', async () => {
    source.answers['/value'] = { json: { value: 1 } };
    const closed = `http://127.0.0.1:${await freePort()}/token`;
    const result = await fetchSource(
      deps(),
      sourceAt(source.url('/value'), {
        type: 'oauth2_client_credentials',
        tokenUrl: closed,
        clientId: 'client',
        scope: null,
        clientSecret: { set: true },
      }),
      { clientSecret: 's' },
    );
    expect(result).toMatchObject({
      ok: false,
      errorClass: 'auth',
      error: expect.stringMatching(
        /^the token request failed: the connection to the source failed: the connection to 127\.0\.0\.1:\d+ was refused/,
      ),
    });
    expect(source.requestsTo('/value')).toEqual([]);
  });
});

describe('credentials whose secret is missing', () => {
  it('are sent empty, never as a placeholder: the source refuses them as it would a wrong one', async () => {
    source.answers['/auth'] = { json: { value: 1 } };
    const auths: Source['auth'][] = [
      { type: 'bearer', token: { set: true } },
      { type: 'header', name: 'X-Api-Token', value: { set: true } },
      { type: 'basic', username: 'user', password: { set: true } },
    ];
    for (const auth of auths) await fetchSource(deps(), sourceAt(source.url('/auth'), auth), {});
    const sent = source
      .requestsTo('/auth')
      .map(({ headers }) => [headers.authorization, headers['x-api-token']]);
    expect(sent).toEqual([
      ['Bearer', undefined], // `Bearer ` as sent: an HTTP server trims the trailing space
      [undefined, ''],
      [`Basic ${Buffer.from('user:').toString('base64')}`, undefined],
    ]);
  });
});

describe('an answer of the source', () => {
  it('is JSON by its media type, whatever its case and parameters; anything else is not_json', async () => {
    source.answers['/problem'] = { text: '{"v":1}', contentType: 'Application/Problem+JSON; charset=utf-8' };
    source.answers['/text'] = { text: '{"v":1}', contentType: 'text/plain' };
    source.answers['/broken'] = { text: '{"v":', contentType: 'application/json' };
    source.answers['/json-suffix'] = { text: '{"v":2}', contentType: 'text/plain+json' };
    source.answers['/spaced'] = { text: '{"v":3}', contentType: 'application/json ; charset=utf-8' };
    // A JSON text whose string holds a byte that is no UTF-8: not decoded with replacement characters.
    source.answers['/latin1'] = {
      text: Buffer.concat([Buffer.from('{"v":"'), Buffer.from([0xff]), Buffer.from('"}')]),
      contentType: 'application/json',
    };
    const fetched = async (path: string) => fetchSource(deps(), sourceAt(source.url(path)), {});
    expect(await fetched('/problem')).toMatchObject({ ok: true, httpStatus: 200, answer: { v: 1 } });
    expect(await fetched('/json-suffix')).toMatchObject({ ok: true, answer: { v: 2 } });
    expect(await fetched('/spaced')).toMatchObject({ ok: true, answer: { v: 3 } });
    expect(await fetched('/text')).toMatchObject({
      ok: false,
      httpStatus: 200,
      errorClass: 'not_json',
      error: 'the answer is not JSON: its Content-Type is text/plain (application/json expected)',
    });
    for (const path of ['/broken', '/latin1']) {
      expect(await fetched(path), path).toMatchObject({
        ok: false,
        httpStatus: 200,
        errorClass: 'not_json',
        error: 'the answer is not valid JSON, though its Content-Type is application/json',
      });
    }
  });

  it('names a refusal of the credentials, a redirect and any other status, with the status', async () => {
    source.answers['/denied'] = { status: 403, json: {} };
    source.answers['/moved'] = { status: 301, json: {}, headers: { location: '/elsewhere' } };
    source.answers['/broken-server'] = { status: 502, json: {} };
    source.answers['/multiple'] = { status: 300, json: { v: 1 } };
    source.answers['/bad-request'] = { status: 400, json: { v: 1 } };
    source.answers['/odd-success'] = { status: 299, json: { v: 1 } };
    const fetched = async (path: string) => fetchSource(deps(), sourceAt(source.url(path)), {});
    expect(await fetched('/denied')).toMatchObject({
      errorClass: 'auth',
      httpStatus: 403,
      error: 'the source refused the credentials (HTTP 403)',
    });
    expect(await fetched('/moved')).toMatchObject({
      errorClass: 'http_status',
      httpStatus: 301,
      error: 'the source answered a redirect (HTTP 301); redirects are not followed',
    });
    expect(await fetched('/broken-server')).toMatchObject({
      errorClass: 'http_status',
      error: 'the source answered HTTP 502',
    });
    expect(await fetched('/multiple')).toMatchObject({
      ok: false,
      httpStatus: 300,
      error: 'the source answered a redirect (HTTP 300); redirects are not followed',
    });
    expect(await fetched('/bad-request')).toMatchObject({
      ok: false,
      httpStatus: 400,
      error: 'the source answered HTTP 400',
    });
    expect(await fetched('/odd-success')).toMatchObject({ ok: true, httpStatus: 299, answer: { v: 1 } });
  });

  it('is larger than the most read: too_large, naming the limit; a closed port: connection', async () => {
    source.answers['/huge'] = { text: 'x'.repeat(MAX_ANSWER_BYTES + 1), contentType: 'application/json' };
    expect(await fetchSource(deps(), sourceAt(source.url('/huge')), {})).toMatchObject({
      ok: false,
      errorClass: 'too_large',
      error: `the answer is larger than ${MAX_ANSWER_BYTES} bytes`,
    });
    const port = await freePort();
    expect(await fetchSource(deps(), sourceAt(`http://127.0.0.1:${port}/`), {})).toMatchObject({
      errorClass: 'connection',
      error: `the connection to the source failed: the connection to 127.0.0.1:${port} was refused (nothing listens at that port)`,
    });
  });

  it('names a failed TLS handshake with the host and port: https to a plain HTTP port', async () => {
    source.answers['/value'] = { json: { value: 1 } };
    const plain = new URL(source.url('/value'));
    const result = await fetchSource(deps(), sourceAt(`https://127.0.0.1:${plain.port}/value`), {});
    expect(result).toMatchObject({
      errorClass: 'connection',
      error: `the connection to the source failed: the TLS handshake with 127.0.0.1:${plain.port} failed (certificate or protocol)`,
    });
  });

  it('says what the source sent when it is not JSON, and that none was named', async () => {
    source.answers['/html'] = { text: '<html></html>', contentType: 'text/html; charset=utf-8' };
    source.answers['/untyped'] = { text: '{"v":1}', contentType: '' };
    expect(await fetchSource(deps(), sourceAt(source.url('/html')), {})).toMatchObject({
      errorClass: 'not_json',
      error: 'the answer is not JSON: its Content-Type is text/html (application/json expected)',
    });
    expect(await fetchSource(deps(), sourceAt(source.url('/untyped')), {})).toMatchObject({
      errorClass: 'not_json',
      error: 'the answer is not JSON: it has no Content-Type (application/json expected)',
    });
  });

  it('is never inflated: a gzip bomb that says it is JSON is not_json, read as its few compressed bytes', async () => {
    source.answers['/gzip-bomb'] = {
      text: gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 }),
      contentType: 'application/json',
      headers: { 'content-encoding': 'gzip' },
    };
    expect(await fetchSource(deps(), sourceAt(source.url('/gzip-bomb')), {})).toMatchObject({
      ok: false,
      httpStatus: 200,
      errorClass: 'not_json',
    });
    expect(source.requestsTo('/gzip-bomb')[0]?.headers['accept-encoding']).toBeUndefined();
  });

  it('takes as long as the clock says between sending and the answer', async () => {
    source.answers['/timed'] = { json: { v: 1 } };
    const times = [1_000, 1_250];
    const result = await fetchSource(
      deps(() => times.shift() ?? 1_250),
      sourceAt(source.url('/timed')),
      {},
    );
    expect(result.durationMs).toBe(250);
    const failedTimes = [2_000, 2_400];
    const refused = await fetchSource(
      deps(() => failedTimes.shift() ?? 2_400),
      sourceAt('http://169.254.169.254/'),
      {},
    );
    expect(refused).toMatchObject({ ok: false, durationMs: 400 });
  });

  it('lets an error that is no egress failure through: a defect is not a failed run', async () => {
    const broken = { send: async () => Promise.reject(new TypeError('a defect')) };
    await expect(
      fetchSource({ egress: broken, tokens: createTokenCache() }, sourceAt(source.url('/value')), {}),
    ).rejects.toThrow('a defect');
    await expect(
      fetchSource(
        { egress: broken, tokens: createTokenCache() },
        sourceAt(source.url('/value'), {
          type: 'oauth2_client_credentials',
          tokenUrl: source.url('/token'),
          clientId: 'c',
          scope: null,
          clientSecret: { set: true },
        }),
        { clientSecret: 's' },
      ),
    ).rejects.toThrow('a defect');
  });

  it('is asked for JSON as the service, whatever headers the integration names', async () => {
    source.answers['/headers'] = { json: { v: 1 } };
    await fetchSource(
      deps(),
      { ...sourceAt(source.url('/headers')), headers: { Accept: 'text/xml', 'X-Team': 'finance' } },
      {},
    );
    const [request] = source.requestsTo('/headers');
    expect(request?.headers).toMatchObject({ accept: 'application/json', 'x-team': 'finance' });
    expect(request?.headers['user-agent']).toBe('strategy-service-pull/1');
  });
});

describe('OAuth2 client credentials', () => {
  const oauth = (tokenPath: string, scope: string | null = 'kpi:read'): Source['auth'] => ({
    type: 'oauth2_client_credentials',
    tokenUrl: source.url(tokenPath),
    clientId: 'client id',
    scope,
    clientSecret: { set: true },
  });

  it('asks the token endpoint once, as RFC 6749 says, and uses the token until its last minute', async () => {
    source.answers['/oauth/token'] = { json: { access_token: 'token-1', expires_in: 3600 } };
    source.answers['/oauth/value'] = { json: { value: 7 } };
    let clock = 1_000_000;
    const shared = deps(() => clock);
    const fetch = () =>
      fetchSource(shared, sourceAt(source.url('/oauth/value'), oauth('/oauth/token')), {
        clientSecret: 's&cret',
      });
    expect(await fetch()).toMatchObject({ ok: true, answer: { value: 7 } });
    clock += 3600_000 - 60_001;
    await fetch();
    const [token, ...more] = source.requestsTo('/oauth/token');
    expect(more).toEqual([]);
    expect(token).toMatchObject({ method: 'POST', body: 'grant_type=client_credentials&scope=kpi%3Aread' });
    expect(token?.headers).toMatchObject({
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      authorization: `Basic ${Buffer.from('client%20id:s%26cret').toString('base64')}`,
    });
    expect(source.requestsTo('/oauth/value').map(({ headers }) => headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-1',
    ]);
    // In its last minute it is asked for again.
    clock += 1;
    await fetch();
    expect(source.requestsTo('/oauth/token')).toHaveLength(2);
  });

  it('keeps a token for the credentials it was issued for: another secret asks again', async () => {
    source.answers['/rotated/token'] = { json: { access_token: 'token-r', expires_in: 3600 } };
    source.answers['/rotated/value'] = { json: { value: 1 } };
    const shared = deps();
    const fetch = (clientSecret: string) =>
      fetchSource(shared, sourceAt(source.url('/rotated/value'), oauth('/rotated/token')), { clientSecret });
    await fetch('first');
    await fetch('first');
    expect(source.requestsTo('/rotated/token')).toHaveLength(1);
    await fetch('second');
    expect(source.requestsTo('/rotated/token')).toHaveLength(2);
  });

  it('keeps no token whose expires_in is no number', async () => {
    source.answers['/texty/token'] = { json: { access_token: 'token-t', expires_in: '3600' } };
    source.answers['/texty/value'] = { json: { value: 1 } };
    const shared = deps();
    const fetch = () =>
      fetchSource(shared, sourceAt(source.url('/texty/value'), oauth('/texty/token')), { clientSecret: 's' });
    expect(await fetch()).toMatchObject({ ok: true });
    await fetch();
    expect(source.requestsTo('/texty/token')).toHaveLength(2);
  });

  it('keeps no token that lives two minutes or less, or says not how long, and drops one the source refuses', async () => {
    source.answers['/short/token'] = { json: { access_token: 'short', expires_in: 120 } };
    source.answers['/short/value'] = { json: { value: 1 } };
    const shared = deps();
    const fetch = () =>
      fetchSource(shared, sourceAt(source.url('/short/value'), oauth('/short/token', null)), {
        clientSecret: 's',
      });
    await fetch();
    await fetch();
    expect(source.requestsTo('/short/token')).toHaveLength(2);
    expect(source.requestsTo('/short/token')[0]?.body).toBe('grant_type=client_credentials');

    source.answers['/refused/token'] = { json: { access_token: 'stale', expires_in: 3600 } };
    source.answers['/refused/value'] = { status: 401, json: {} };
    const refused = () =>
      fetchSource(shared, sourceAt(source.url('/refused/value'), oauth('/refused/token')), {
        clientSecret: 's',
      });
    expect(await refused()).toMatchObject({ errorClass: 'auth', httpStatus: 401 });
    await refused();
    expect(source.requestsTo('/refused/token')).toHaveLength(2);
  });

  it('fails as auth when the token endpoint answers an error, no JSON or no access_token', async () => {
    source.answers['/bad/value'] = { json: { value: 1 } };
    const cases: [string, (typeof source.answers)[string], string][] = [
      ['/bad/500', { status: 500, json: {} }, 'the token endpoint answered HTTP 500'],
      [
        '/bad/302',
        { status: 302, json: {}, headers: { location: '/x' } },
        'the token endpoint answered HTTP 302',
      ],
      ['/bad/300', { status: 300, json: {} }, 'the token endpoint answered HTTP 300'],
      [
        '/bad/text',
        { text: 'access_token=x', contentType: 'text/plain' },
        'the token endpoint answered without an access_token',
      ],
      ['/bad/empty', { json: { access_token: '' } }, 'the token endpoint answered without an access_token'],
      ['/bad/number', { json: { access_token: 7 } }, 'the token endpoint answered without an access_token'],
    ];
    for (const [path, answer, error] of cases) {
      source.answers[path] = answer;
      const result = await fetchSource(deps(), sourceAt(source.url('/bad/value'), oauth(path)), {
        clientSecret: 's',
      });
      expect(result, path).toMatchObject({ ok: false, errorClass: 'auth', error });
    }
    expect(source.requestsTo('/bad/value')).toEqual([]);
  });

  it('names the token answer’s own limit (64 KiB) when the token endpoint answers more', async () => {
    source.answers['/big/token'] = {
      json: { access_token: 'x'.repeat(MAX_TOKEN_ANSWER_BYTES), expires_in: 3600 },
    };
    source.answers['/big/value'] = { json: { value: 1 } };
    const result = await fetchSource(deps(), sourceAt(source.url('/big/value'), oauth('/big/token')), {
      clientSecret: 's',
    });
    expect(MAX_TOKEN_ANSWER_BYTES).toBe(65_536);
    expect(result).toMatchObject({
      ok: false,
      errorClass: 'auth',
      error: 'the token request failed: the answer is larger than 65536 bytes',
    });
    expect(source.requestsTo('/big/value')).toEqual([]);
  });

  it('keeps a token an hour at most, whatever its expires_in says, an infinite one too', async () => {
    source.answers['/forever/value'] = { json: { value: 1 } };
    const cases: [string, string][] = [
      ['/forever/infinite', '{"access_token":"token-inf","expires_in":1e400}'],
      ['/forever/day', '{"access_token":"token-day","expires_in":86400}'],
    ];
    for (const [path, text] of cases) {
      source.answers[path] = { text, contentType: 'application/json' };
      let clock = 5_000_000;
      const shared = deps(() => clock);
      const fetch = () =>
        fetchSource(shared, sourceAt(source.url('/forever/value'), oauth(path)), { clientSecret: 's' });
      expect(await fetch(), path).toMatchObject({ ok: true });
      // Kept until the last minute of its hour...
      clock += MAX_TOKEN_LIFETIME_MS - 60_001;
      await fetch();
      expect(source.requestsTo(path), path).toHaveLength(1);
      // ...and asked for again after it.
      clock += 1;
      await fetch();
      expect(source.requestsTo(path), path).toHaveLength(2);
    }
    expect(MAX_TOKEN_LIFETIME_MS).toBe(3_600_000);
  });

  it('refuses at once, as auth, a token that is no header value (CR, LF or another control character), and keeps none', async () => {
    source.answers['/crlf/value'] = { json: { value: 1 } };
    for (const [path, token] of [
      ['/crlf/both', 'token\r\nX-Injected: 1'],
      ['/crlf/lf', 'token\nmore'],
      ['/crlf/nul', 'token\u0000'],
      ['/crlf/tab', 'token\tmore'],
    ] as const) {
      source.answers[path] = { json: { access_token: token, expires_in: 3600 } };
      const shared = deps();
      const fetch = () =>
        fetchSource(shared, sourceAt(source.url('/crlf/value'), oauth(path)), { clientSecret: 's' });
      for (let attempt = 0; attempt < 2; attempt++) {
        expect(await fetch(), path).toMatchObject({
          ok: false,
          errorClass: 'auth',
          error: 'the token endpoint answered an access_token with control characters',
        });
      }
      expect(source.requestsTo(path), path).toHaveLength(2);
    }
    expect(source.requestsTo('/crlf/value')).toEqual([]);
  });

  it('keeps a token for the origin it was fetched for: the same credentials for another origin ask again', async () => {
    source.answers['/origin/token'] = { json: { access_token: 'token-o', expires_in: 3600 } };
    source.answers['/origin/value'] = { json: { value: 1 } };
    const shared = deps();
    const auth = oauth('/origin/token');
    await fetchSource(shared, sourceAt(source.url('/origin/value'), auth), { clientSecret: 's' });
    await fetchSource(shared, sourceAt(source.url('/origin/value?again'), auth), { clientSecret: 's' });
    expect(source.requestsTo('/origin/token')).toHaveLength(1);
    // localhost is another origin of the same server.
    const otherOrigin = source.url('/origin/value').replace('127.0.0.1', 'localhost');
    await fetchSource(shared, sourceAt(otherOrigin, auth), { clientSecret: 's' });
    expect(source.requestsTo('/origin/token')).toHaveLength(2);
  });
});
