import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ssmSecret } from '../../../../lib/auth/jwt-secret';
import { captureOutput } from '../../../support/output';
import { json, startScriptedServer } from '../../../support/scripted-server';

/**
 * Issue 14: the JWT key read from an SSM SecureString with the SDK the Lambda runtime provides, here
 * against a local server that answers SSM's JSON protocol (AmazonSSM.GetParameter).
 */
let server: Awaited<ReturnType<typeof startScriptedServer>>;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

const NAME = '/strategy-service/test/jwt-secret';
const parameter = (Value: string, Type = 'SecureString') =>
  json(200, { Parameter: { Name: NAME, Type, Value, Version: 1 } });
const notFound = json(400, { __type: 'ParameterNotFound', message: 'not found' });

const source = (now: () => number = Date.now) =>
  ssmSecret({ name: NAME, region: 'eu-central-1', maxAgeSeconds: 300, endpoint: server.endpoint, now });

describe('JWT key from SSM (issue 14)', () => {
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

  it('keeps the value for maxAgeSeconds, then reads again (a rotation arrives without a deploy)', async () => {
    let now = 1_000_000;
    const read = source(() => now);
    server.answer(parameter('key-one'), parameter('key-two'));
    expect(await read()).toBe('key-one');
    now += 299_999;
    expect(await read()).toBe('key-one');
    expect(server.received).toHaveLength(1);
    now += 1;
    expect(await read()).toBe('key-two');
    expect(server.received).toHaveLength(2);
  });

  it('concurrent first requests share one read', async () => {
    server.answer(parameter('key-one'));
    const read = source();
    expect(await Promise.all([read(), read(), read()])).toEqual(['key-one', 'key-one', 'key-one']);
    expect(server.received).toHaveLength(1);
  });

  it('refuses a parameter stored in plain text, or none, and fails the first read', async () => {
    server.answer(parameter('key-one', 'String'));
    await expect(source()()).rejects.toThrow(`SSM parameter ${NAME} must be a SecureString (found String).`);
    server.answer(json(200, { Parameter: { Name: NAME, Type: 'SecureString', Value: '' } }));
    await expect(source()()).rejects.toThrow(
      `SSM parameter ${NAME} must be a SecureString (found SecureString).`,
    );
    server.answer(json(200, {}));
    await expect(source()()).rejects.toThrow(`SSM parameter ${NAME} must be a SecureString (found nothing).`);
    server.answer(notFound);
    await expect(source()()).rejects.toMatchObject({ name: 'ParameterNotFound' });
  });

  it('a failed re-read keeps the cached key and logs a warning; the next one tries again', async () => {
    let now = 1_000_000;
    const read = source(() => now);
    server.answer(parameter('key-one'), notFound, parameter('key-two'));
    expect(await read()).toBe('key-one');
    now += 300_000;
    const { result, lines } = await captureOutput(() => read());
    expect(result).toBe('key-one');
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'WARN', message: 'JWT key re-read failed; using the cached key' }),
    );
    expect(await read()).toBe('key-two');
    expect(server.received).toHaveLength(3);
  });
});
