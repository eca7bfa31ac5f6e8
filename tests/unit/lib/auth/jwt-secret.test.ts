import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ssmSecret } from '../../../../lib/auth/jwt-secret';
import { toAppError } from '../../../../lib/http/middleware';
import { captureOutput } from '../../../support/output';
import { json, startScriptedServer } from '../../../support/scripted-server';

/**
 * The JWT key read from an SSM SecureString through Powertools Parameters and the SDK's SSM client,
 * here against a local server that answers SSM's JSON protocol (AmazonSSM.GetParameter).
 */
let server: Awaited<ReturnType<typeof startScriptedServer>>;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

/**
 * Powertools dates its cache with `Date`: frozen here, it moves only when a test moves it. It starts at
 * the real time and moves by a minute at most, because the SDK compares it with the server's `Date`
 * header and takes a difference of 5 minutes for a skewed clock (and retries).
 */
const MAX_AGE_SECONDS = 60;
let start: number;
beforeEach(() => {
  start = Date.now();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(start);
});
afterEach(() => {
  vi.useRealTimers();
});

const NAME = '/strategy-service/test/jwt-secret';
const parameter = (Value: string) =>
  json(200, { Parameter: { Name: NAME, Type: 'SecureString', Value, Version: 1 } });
const notFound = json(400, { __type: 'ParameterNotFound', message: 'not found' });
const throttled = json(400, { __type: 'ThrottlingException', message: 'Rate exceeded' });

const source = () =>
  ssmSecret({
    name: NAME,
    region: 'eu-central-1',
    maxAgeSeconds: MAX_AGE_SECONDS,
    endpoint: server.endpoint,
  });

describe('JWT key from SSM', () => {
  it('asks SSM to decrypt the named parameter, and returns its value', async () => {
    server.answer(parameter('key-one'));
    expect(await source()()).toBe('key-one');
    expect(server.received).toHaveLength(1);
    const [request] = server.received;
    expect(request!.headers['x-amz-target']).toBe('AmazonSSM.GetParameter');
    expect(JSON.parse(request!.body)).toEqual({ Name: NAME, WithDecryption: true });
    // Signed for SSM in the configured region (the local endpoint takes any credentials).
    expect(request!.headers.authorization).toMatch(
      /Credential=local\/\d{8}\/eu-central-1\/ssm\/aws4_request/,
    );
  });

  it('without a test endpoint, uses the SDK’s own endpoint and credentials (on AWS: the regional endpoint, the role)', async () => {
    // The SDK's own configuration, pointed at the local server: its variables for the endpoint and the keys.
    vi.stubEnv('AWS_ENDPOINT_URL_SSM', server.endpoint);
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'FROMTHEENVIRONMENT');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    try {
      server.answer(parameter('key-one'));
      expect(await ssmSecret({ name: NAME, region: 'eu-central-1', maxAgeSeconds: MAX_AGE_SECONDS })()).toBe(
        'key-one',
      );
      expect(server.received[0]!.headers.authorization).toMatch(
        /Credential=FROMTHEENVIRONMENT\/\d{8}\/eu-central-1\/ssm\/aws4_request/,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('keeps the value for maxAgeSeconds, then reads again (a rotation arrives without a deploy)', async () => {
    const read = source();
    server.answer(parameter('key-one'), parameter('key-two'));
    expect(await read()).toBe('key-one');
    vi.setSystemTime(start + MAX_AGE_SECONDS * 1000);
    expect(await read()).toBe('key-one');
    expect(server.received).toHaveLength(1);
    vi.setSystemTime(start + MAX_AGE_SECONDS * 1000 + 1);
    expect(await read()).toBe('key-two');
    expect(await read()).toBe('key-two');
    expect(server.received).toHaveLength(2);
  });

  it('concurrent first requests share one read', async () => {
    server.answer(parameter('key-one'));
    const read = source();
    expect(await Promise.all([read(), read(), read()])).toEqual(['key-one', 'key-one', 'key-one']);
    expect(server.received).toHaveLength(1);
  });

  it('fails the first read when there is no such parameter, or none in the answer', async () => {
    for (const answer of [notFound, json(200, {})]) {
      server.answer(answer);
      await expect(source()()).rejects.toMatchObject({
        name: 'ParameterNotFoundError',
        message: `Parameter ${NAME} not found in the store`,
      });
    }
  });

  it('a throttled first read fails with the SDK’s error, which the HTTP layer answers with 503', async () => {
    server.answer(throttled);
    const error = await source()().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ThrottlingException', message: 'Rate exceeded' });
    // The SDK tried three times before giving up.
    expect(server.received).toHaveLength(3);
    expect(toAppError(error)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '1' } });
  });

  it('a failed re-read keeps the cached key and logs a warning without it; the next one tries again', async () => {
    const read = source();
    server.answer(parameter('key-one'), notFound, parameter('key-two'));
    expect(await read()).toBe('key-one');
    vi.setSystemTime(start + MAX_AGE_SECONDS * 1000 + 1);
    const { result, lines } = await captureOutput(() => read());
    expect(result).toBe('key-one');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'WARN',
        message: 'JWT key re-read failed; using the cached key',
        error: expect.objectContaining({ name: 'ParameterNotFoundError' }),
      }),
    );
    expect(JSON.stringify(lines)).not.toContain('key-one');
    expect(await read()).toBe('key-two');
    expect(server.received).toHaveLength(3);
  });
});
