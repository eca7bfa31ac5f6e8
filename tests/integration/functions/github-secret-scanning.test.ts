import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import {
  handler,
  MAX_REPORT_BYTES,
  MAX_REPORT_MATCHES,
  route,
} from '../../../functions/github-secret-scanning';
import { handler as listHandler } from '../../../functions/list-api-keys';
import { generateApiKey, hashApiKey } from '../../../lib/api-keys/key-format';
import { createApiKey, revokeApiKey } from '../../../lib/api-keys/service';
import { createGithubKeys } from '../../../lib/auth/github-keys';
import { getApiKeyByHash } from '../../../lib/db/api-keys';
import { githubSignedEndpointOf } from '../../../lib/http/endpoint';
import { tracer } from '../../../lib/tracer';
import { apiEvent, invoke, lambdaContext } from '../../support/events';
import { bearer, createTestTenant, db, publish, type TestTenant } from '../../support/fixtures';
import { newSigningKey, signedHeaders, startKeysServer } from '../../support/github-keys';
import { captureOutput } from '../../support/output';
import { measurementFor, pushOne } from '../../support/push';

/**
 * POST /secret-scanning/github as GitHub calls it: reports signed by the run's published key
 * (tests/support/github-keys-global-setup.ts), the handler's keys fetched from that server.
 */
const signingKey = inject('secretScanningKey');
const PATH = '/api/secret-scanning/github';
const TYPE = 'strategy_service_api_key';
const URL = 'https://github.com/octocat/Hello-World/blob/12345600b9cbe38a219f39a9941c9319b600c002/.env';

const match = (token: string, url = URL) => ({ token, type: TYPE, url, source: 'content' });

/** Sends `body` (as these exact bytes) with the headers GitHub would send, or `headers` instead. */
const send = (body: string, headers: Record<string, string> = signedHeaders(body, signingKey)) =>
  invoke(handler, {
    method: 'POST',
    path: PATH,
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });
const report = (matches: unknown[]) => send(JSON.stringify(matches));

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const stored = (key: string) => getApiKeyByHash(db, hashApiKey(key));
const withoutRequestId = ({ requestId: _, ...rest }: Record<string, unknown>) => rest;

/** A key whose checksum is wrong: the right shape, one character changed at the end. */
const mistyped = (key: string) => `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ plan: 'enterprise' });
});

describe('POST /secret-scanning/github: a signed report', () => {
  it('revokes exactly the live key, labels each token, and the next push with it is refused', async () => {
    const live = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'leaked' });
    const revoked = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'revoked before' });
    await revokeApiKey(db, tenant.tenant.id, revoked.id, { type: 'operator', name: 'ops' }, publish);
    const bystander = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'not reported' });
    const malformed = mistyped(generateApiKey());
    const kpi = tenant.kpis[0]!;
    expect((await pushOne(live.key, measurementFor(kpi))).status).toBe(201);

    const result = await report([match(live.key), match(revoked.key), match(malformed)]);

    expect(result.status).toBe(200);
    expect(result.headers['content-type']).toBe('application/json');
    expect(result.body).toEqual([
      { token_hash: sha256(live.key), token_type: TYPE, label: 'true_positive' },
      { token_hash: sha256(revoked.key), token_type: TYPE, label: 'true_positive' },
      { token_hash: sha256(malformed), token_type: TYPE, label: 'false_positive' },
    ]);
    for (const { token_hash } of result.body) expect(token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await stored(live.key)).toMatchObject({
      revokedBy: { type: 'secret-scanning', source: 'github', url: URL },
    });
    expect((await stored(live.key))?.revokedAt).not.toBeNull();
    // The key revoked before keeps its first revocation; the key not reported stays active.
    expect((await stored(revoked.key))?.revokedBy).toEqual({ type: 'operator', name: 'ops' });
    expect((await stored(bystander.key))?.revokedAt).toBeNull();
    const refused = await pushOne(live.key, measurementFor(kpi, { actual: 2 }));
    expect(refused.status).toBe(403);
    expect(refused.body.type).toMatch(/\/api-key-revoked$/);
    expect((await pushOne(bystander.key, measurementFor(kpi, { actual: 3 }))).status).toBe(200);
  });

  it('shows the revocation in the key list: by GitHub secret scanning, with the URL', async () => {
    const live = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'listed leak' });
    expect((await report([match(live.key)])).status).toBe(200);
    const listed = await invoke(listHandler, {
      path: '/api/api-keys',
      headers: bearer(tenant.users.VIEWER.token),
      query: { limit: '1000' },
    });
    expect(listed.body.items.find((key: { id: string }) => key.id === live.id)).toMatchObject({
      status: 'revoked',
      revokedBy: { type: 'secret-scanning', source: 'github', url: URL },
    });
  });

  it('is idempotent: the same report again changes nothing more and gets the same answer', async () => {
    const live = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'reported twice' });
    const body = JSON.stringify([match(live.key), match(mistyped(live.key))]);
    const first = await send(body);
    const after = await stored(live.key);
    const second = await send(body);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(await stored(live.key)).toEqual(after);
  });

  it('labels an expired key of the service true_positive without revoking it, and an unknown key false_positive', async () => {
    const expired = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'expired',
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    const unknown = generateApiKey();
    const result = await report([match(expired.key), match(unknown)]);
    expect(result.body.map((verdict: { label: string }) => verdict.label)).toEqual([
      'true_positive',
      'false_positive',
    ]);
    expect((await stored(expired.key))?.revokedAt).toBeNull();
  });

  it('logs api_key.leaked with the key, its tenant and the URL, and never the token', async () => {
    const live = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'audited' });
    const { result, lines } = await captureOutput(() => report([match(live.key)]));
    expect(result.status).toBe(200);
    const audits = lines.filter((line) => line.audit === 'api_key.leaked');
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({
      message: 'audit',
      keyId: live.id,
      keyPrefix: live.prefix,
      tenantId: tenant.tenant.id,
      url: URL,
      githubSource: 'content',
      revoked: true,
    });
    expect(JSON.stringify(lines)).not.toContain(live.key);
  });

  it('verifies the bytes as received when API Gateway passes the body base64-encoded', async () => {
    const live = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'binary body' });
    const body = JSON.stringify([match(live.key)]);
    const event = {
      ...apiEvent({
        method: 'POST',
        path: PATH,
        headers: { 'Content-Type': 'application/json', ...signedHeaders(body, signingKey) },
      }),
      body: Buffer.from(body).toString('base64'),
      isBase64Encoded: true,
    };
    const result = await handler(event, lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)[0].label).toBe('true_positive');
    expect((await stored(live.key))?.revokedAt).not.toBeNull();
  });
});

describe('POST /secret-scanning/github: requests GitHub did not sign', () => {
  it('refuses unsigned, unknown-key and badly signed reports alike with 401, and changes nothing', async () => {
    const live = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'forged report' });
    const body = JSON.stringify([match(live.key)]);
    const signed = signedHeaders(body, signingKey);
    const stranger = newSigningKey();
    const attempts: Record<string, string>[] = [
      {},
      { 'Github-Public-Key-Identifier': signingKey.identifier },
      { 'Github-Public-Key-Signature': signed['Github-Public-Key-Signature'] },
      // Signed by a key GitHub does not publish, under its own identifier and under GitHub's.
      signedHeaders(body, stranger),
      { ...signedHeaders(body, stranger), 'Github-Public-Key-Identifier': signingKey.identifier },
      // A signature of another body.
      signedHeaders(`${body} `, signingKey),
      { ...signed, 'Github-Public-Key-Signature': 'not base64!' },
      { ...signed, 'Github-Public-Key-Signature': Buffer.from('garbage').toString('base64') },
    ];
    const answers = [];
    for (const headers of attempts) answers.push(await send(body, headers));
    // The body as signed, with one character changed after signing.
    answers.push(await send(body.replace('content', 'CONTENT'), signed));
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.headers['content-type']).toBe('application/problem+json');
      expect(answer.headers['www-authenticate']).toBe('GithubSignature header="Github-Public-Key-Signature"');
      expect(withoutRequestId(answer.body)).toEqual(withoutRequestId(answers[0]!.body));
    }
    expect(answers[0]!.body.type).toMatch(/\/unauthenticated$/);
    expect(answers[0]!.body.detail).toBe('The request is not signed by GitHub secret scanning.');
    expect(JSON.stringify(answers[0]!.body)).not.toMatch(/identifier|signature does not|unknown key/i);
    expect((await stored(live.key))?.revokedAt).toBeNull();
  });
});

describe('POST /secret-scanning/github: the signature headers', () => {
  it('are read without the whitespace around their values', async () => {
    const live = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'padded headers' });
    const body = JSON.stringify([match(live.key)]);
    const signed = signedHeaders(body, signingKey);
    const padded = Object.fromEntries(Object.entries(signed).map(([name, value]) => [name, ` ${value}\t`]));
    const result = await send(body, padded);
    expect(result.status).toBe(200);
    expect(result.body[0].label).toBe('true_positive');
  });

  it('sent twice with different values are refused as unsigned, with nothing changed', async () => {
    const live = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'two signatures' });
    const body = JSON.stringify([match(live.key)]);
    const signed = signedHeaders(body, signingKey);
    for (const name of Object.keys(signed) as (keyof typeof signed)[]) {
      const event = apiEvent({
        method: 'POST',
        path: PATH,
        headers: { 'Content-Type': 'application/json', ...signed },
        body,
      });
      event.multiValueHeaders[name] = [signed[name], `${signed[name].slice(0, -2)}AA`];
      const result = await handler(event, lambdaContext());
      expect(result.statusCode, name).toBe(401);
      expect(JSON.parse(result.body).detail).toBe('The request is not signed by GitHub secret scanning.');
    }
    expect((await stored(live.key))?.revokedAt).toBeNull();
  });
});

describe('POST /secret-scanning/github: when GitHub’s keys cannot be fetched', () => {
  it('answers 503 with Retry-After, neither accepting the report nor calling it forged, and changes nothing', async () => {
    // The route's own declaration behind the same wrapper, with keys from a server that has gone.
    const gone = await startKeysServer([]);
    await gone.close();
    const unreachable = githubSignedEndpointOf(
      { corsOrigins: [], tracer },
      createGithubKeys({ url: gone.url }),
    )(route);
    const live = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'keys unavailable' });
    const body = JSON.stringify([match(live.key)]);
    const result = await invoke(unreachable, {
      method: 'POST',
      path: PATH,
      headers: { 'Content-Type': 'application/json', ...signedHeaders(body, signingKey) },
      body,
    });
    expect(result.status).toBe(503);
    expect(result.headers['retry-after']).toBe('60');
    expect(result.body.type).toMatch(/\/service-unavailable$/);
    expect(result.body.detail).toBe(
      'The service is temporarily unavailable. Retry after the time in Retry-After.',
    );
    expect((await stored(live.key))?.revokedAt).toBeNull();
  });

  it('answers any other failure of the keys 500, not 503: a retry would not help', async () => {
    const broken = githubSignedEndpointOf(
      { corsOrigins: [], tracer },
      {
        keyFor: async () => {
          throw new TypeError('a bug in the keys');
        },
      },
    )(route);
    const body = JSON.stringify([match(generateApiKey())]);
    const result = await invoke(broken, {
      method: 'POST',
      path: PATH,
      headers: { 'Content-Type': 'application/json', ...signedHeaders(body, signingKey) },
      body,
    });
    expect(result.status).toBe(500);
    expect(result.headers['retry-after']).toBeUndefined();
    expect(JSON.stringify(result.body)).not.toContain('a bug in the keys');
  });
});

describe('POST /secret-scanning/github: GitHub rotates its key', () => {
  it('a report signed by a new key fetches the keys again once and is judged; a forged identifier then fetches nothing', async () => {
    // The route's own declaration behind the same wrapper, with keys from a server of this test.
    const old = newSigningKey();
    const rotated = newSigningKey();
    const github = await startKeysServer([old]);
    // The keys' clock, moved by the test: a fetch for an unknown identifier comes a minute after the last.
    let now = Date.now();
    try {
      const rotating = githubSignedEndpointOf(
        { corsOrigins: [], tracer },
        createGithubKeys({ url: github.url, now: () => now }),
      )(route);
      const sendTo = (body: string, key: ReturnType<typeof newSigningKey>) =>
        invoke(rotating, {
          method: 'POST',
          path: PATH,
          headers: { 'Content-Type': 'application/json', ...signedHeaders(body, key) },
          body,
        });
      const first = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'before the rotation' });
      expect((await sendTo(JSON.stringify([match(first.key)]), old)).status).toBe(200);
      expect(github.fetches).toBe(1);
      github.serve([rotated, old]);
      now += 60_000;
      const second = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'after the rotation' });
      const result = await sendTo(JSON.stringify([match(second.key)]), rotated);
      expect(result.status).toBe(200);
      expect(result.body[0].label).toBe('true_positive');
      expect(github.fetches).toBe(2);
      // Within the minute after that fetch, an identifier GitHub never published is refused without
      // asking GitHub again.
      const forged = await sendTo(JSON.stringify([match(second.key)]), newSigningKey());
      expect(forged.status).toBe(401);
      expect(github.fetches).toBe(2);
    } finally {
      await github.close();
    }
  });
});

describe('POST /secret-scanning/github: bounds and bad input', () => {
  it('accepts a signed report over the 64 KiB of other routes, up to its own limit', async () => {
    // The route's declaration behind a wrapper made here, so the wrapper's own code is what runs.
    const key = newSigningKey();
    const github = await startKeysServer([key]);
    try {
      const wrapped = githubSignedEndpointOf(
        { corsOrigins: [], tracer },
        createGithubKeys({ url: github.url }),
      )(route);
      const body = `${JSON.stringify([match(mistyped(generateApiKey()))])}${' '.repeat(100 * 1024)}`;
      const result = await invoke(wrapped, {
        method: 'POST',
        path: PATH,
        headers: { 'Content-Type': 'application/json', ...signedHeaders(body, key) },
        body,
      });
      expect(result.status).toBe(200);
      expect(result.body[0].label).toBe('false_positive');
    } finally {
      await github.close();
    }
  });

  it('answers GitHub without CORS headers, whatever Origin a request names: no browser calls it', async () => {
    const key = newSigningKey();
    const github = await startKeysServer([key]);
    try {
      const withCors = githubSignedEndpointOf(
        { corsOrigins: ['https://app.example.com'], tracer },
        createGithubKeys({ url: github.url }),
      )(route);
      const body = JSON.stringify([match(mistyped(generateApiKey()))]);
      const result = await invoke(withCors, {
        method: 'POST',
        path: PATH,
        headers: {
          'Content-Type': 'application/json',
          Origin: 'https://app.example.com',
          ...signedHeaders(body, key),
        },
        body,
      });
      expect(result.status).toBe(200);
      expect(Object.keys(result.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    } finally {
      await github.close();
    }
  });

  it(`answers 413 for a body over ${MAX_REPORT_BYTES} bytes, before any signature check`, async () => {
    const body = JSON.stringify([{ ...match(generateApiKey()), url: 'x'.repeat(MAX_REPORT_BYTES) }]);
    const result = await send(body, {});
    expect(result.status).toBe(413);
    expect(result.body.type).toMatch(/\/payload-too-large$/);
  });

  it(`answers 400 for more than ${MAX_REPORT_MATCHES} matches, naming the limit`, async () => {
    const matches = Array.from({ length: MAX_REPORT_MATCHES + 1 }, () => match(mistyped(generateApiKey())));
    const result = await report(matches);
    expect(result.status).toBe(400);
    expect(result.body.type).toMatch(/\/validation-failed$/);
    expect(JSON.stringify(result.body.errors)).toContain(String(MAX_REPORT_MATCHES));
  });

  it('answers 400 for a signed body that is not JSON, or not a report', async () => {
    const notJson = await send('[{"token":');
    expect(notJson.status).toBe(400);
    expect(notJson.body.type).toMatch(/\/malformed-request$/);
    const notReport = await report([{ token: 7, type: TYPE }]);
    expect(notReport.status).toBe(400);
    expect(notReport.body.errors.map((error: { path: string }) => error.path).sort()).toEqual([
      '[0].token',
      '[0].url',
    ]);
    expect((await report([])).status).toBe(400);
  });
});
