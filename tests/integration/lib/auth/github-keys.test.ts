import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGithubKeys, isSignedBy, KeysUnavailable } from '../../../../lib/auth/github-keys';
import { newSigningKey, signedHeaders, startKeysServer } from '../../../support/github-keys';
import { captureOutput } from '../../../support/output';

/**
 * GitHub's published keys, fetched from a real local server that stands in for
 * api.github.com/meta/public_keys/secret_scanning; the clock is injected, so the cache's ages are
 * set, never waited for.
 */
const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const serving = async (...keys: ReturnType<typeof newSigningKey>[]) => {
  const server = await startKeysServer(keys);
  servers.push(server);
  return server;
};

/** A clock that moves only when told. */
const clock = () => {
  let now = 1_000_000;
  return { now: () => now, advance: (seconds: number) => (now += seconds * 1000) };
};

describe('GitHub secret-scanning keys', () => {
  it('fetches the list once and answers from it until it is an hour old', async () => {
    const key = newSigningKey();
    const server = await serving(key);
    const time = clock();
    const keys = createGithubKeys({ url: server.url, now: time.now });
    expect(await keys.keyFor(key.identifier)).toBeDefined();
    expect(server.accept).toBe('application/json');
    time.advance(3599);
    expect(await keys.keyFor(key.identifier)).toBeDefined();
    expect(server.fetches).toBe(1);
    time.advance(1);
    expect(await keys.keyFor(key.identifier)).toBeDefined();
    expect(server.fetches).toBe(2);
  });

  it('fetches again for an unknown identifier, so a rotated key works at once', async () => {
    const old = newSigningKey();
    const rotated = newSigningKey();
    const server = await serving(old);
    const time = clock();
    const keys = createGithubKeys({ url: server.url, now: time.now });
    expect(await keys.keyFor(old.identifier)).toBeDefined();
    server.serve([rotated, old]);
    time.advance(60);
    const key = await keys.keyFor(rotated.identifier);
    expect(server.fetches).toBe(2);
    const body = Buffer.from('[{"token":"t","type":"x","url":""}]');
    const signature = Buffer.from(signedHeaders(body, rotated)['Github-Public-Key-Signature'], 'base64');
    expect(isSignedBy(key!, body, signature)).toBe(true);
  });

  it('fetches for unknown identifiers at most once a minute: forged identifiers cannot make it hammer GitHub', async () => {
    const key = newSigningKey();
    const server = await serving(key);
    const time = clock();
    const keys = createGithubKeys({ url: server.url, now: time.now });
    await keys.keyFor(key.identifier);
    time.advance(60);
    for (let i = 0; i < 20; i++) expect(await keys.keyFor(`forged-${i}`)).toBeUndefined();
    expect(server.fetches).toBe(2);
    time.advance(59);
    expect(await keys.keyFor('forged-again')).toBeUndefined();
    expect(server.fetches).toBe(2);
    time.advance(1);
    expect(await keys.keyFor('forged-later')).toBeUndefined();
    expect(server.fetches).toBe(3);
  });

  it('lets concurrent requests share one fetch', async () => {
    const key = newSigningKey();
    const server = await serving(key);
    const keys = createGithubKeys({ url: server.url });
    const found = await Promise.all(Array.from({ length: 5 }, () => keys.keyFor(key.identifier)));
    expect(found.every(Boolean)).toBe(true);
    expect(server.fetches).toBe(1);
  });

  it('keeps the list it had when a fetch fails, and cannot judge without any list (KeysUnavailable)', async () => {
    const key = newSigningKey();
    const server = await serving(key);
    const time = clock();
    const keys = createGithubKeys({ url: server.url, now: time.now });
    await keys.keyFor(key.identifier);
    server.answer(503);
    time.advance(3600);
    const { result, lines } = await captureOutput(() => keys.keyFor(key.identifier));
    expect(result).toBeDefined();
    expect(server.fetches).toBe(2);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'WARN',
        message: 'secret scanning: the public keys could not be fetched',
        error: 'HTTP 503',
      }),
    );

    const fresh = createGithubKeys({ url: server.url, now: time.now });
    await expect(fresh.keyFor(key.identifier)).rejects.toBeInstanceOf(KeysUnavailable);
    await expect(fresh.keyFor(key.identifier)).rejects.toMatchObject({
      name: 'KeysUnavailable',
      message: "GitHub's secret-scanning public keys are unavailable.",
    });
    // Within the minute, a failed first fetch is not tried again either.
    await expect(fresh.keyFor(key.identifier)).rejects.toBeInstanceOf(KeysUnavailable);
    expect(server.fetches).toBe(3);
    server.answer(200);
    time.advance(60);
    expect(await fresh.keyFor(key.identifier)).toBeDefined();
  });

  it('gives up on a server that does not answer after its timeout', async () => {
    const hanging = createServer(() => undefined);
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    servers.push({
      close: () =>
        new Promise<void>((resolve) => {
          hanging.closeAllConnections();
          hanging.close(() => resolve());
        }),
    });
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/keys`;
    const keys = createGithubKeys({ url, timeoutMs: 100 });
    await expect(keys.keyFor('any')).rejects.toBeInstanceOf(KeysUnavailable);
  });

  it('leaves out a published key that is not a public key, and uses the others', async () => {
    const good = newSigningKey();
    const bad = {
      ...newSigningKey(),
      publicKeyPem: '-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----',
    };
    const server = await serving(bad, good);
    const keys = createGithubKeys({ url: server.url });
    const { result, lines } = await captureOutput(() => keys.keyFor(good.identifier));
    expect(result).toBeDefined();
    expect(await keys.keyFor(bad.identifier)).toBeUndefined();
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'WARN',
        message: 'secret scanning: a published key does not parse',
        keyIdentifier: bad.identifier,
      }),
    );
  });

  it('accepts only a DER signature of exactly these bytes by this key', async () => {
    const key = newSigningKey();
    const other = newSigningKey();
    const server = await serving(key);
    const published = (await createGithubKeys({ url: server.url }).keyFor(key.identifier))!;
    const body = Buffer.from('[]');
    const sig = (signer: typeof key, bytes: Buffer) =>
      Buffer.from(signedHeaders(bytes, signer)['Github-Public-Key-Signature'], 'base64');
    expect(isSignedBy(published, body, sig(key, body))).toBe(true);
    expect(isSignedBy(published, Buffer.from('[ ]'), sig(key, body))).toBe(false);
    expect(isSignedBy(published, body, sig(other, body))).toBe(false);
    expect(isSignedBy(published, body, Buffer.from('not DER'))).toBe(false);
    // A key of another type makes the check itself fail (no SHA-256 with Ed25519): still just false.
    const edwards = generateKeyPairSync('ed25519').publicKey;
    expect(isSignedBy(edwards, body, sig(key, body))).toBe(false);
  });
});
