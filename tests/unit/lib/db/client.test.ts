import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDatabase, MAX_ATTEMPTS } from '../../../../lib/db/client';
import { isTransientDbFailure } from '../../../../lib/db/errors';
import { hang, json, startScriptedServer } from '../../../support/scripted-server';

describe('createDatabase', () => {
  it('on AWS: the regional endpoint and the SDK credential chain, standard retries of 3 attempts', async () => {
    const aws = createDatabase({ tableName: 't', region: 'eu-central-1' });
    expect(aws.tableName).toBe('t');
    expect(await aws.client.config.region()).toBe('eu-central-1');
    expect(await aws.client.config.maxAttempts()).toBe(MAX_ATTEMPTS);
    expect(MAX_ATTEMPTS).toBe(3);
    expect(aws.client.config.retryStrategy).toBeDefined();
    expect(aws.client.config.retryMode).toBe('standard');
    // No endpoint given: the SDK resolves dynamodb.<region>.amazonaws.com itself (FIPS, dual-stack).
    expect(aws.client.config.endpoint).toBeUndefined();
    aws.client.destroy();
  });

  it('never sends real credentials to DynamoDB Local: it signs as "local"', async () => {
    const server = await startScriptedServer();
    const saved = { ...process.env };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIAREALKEY', AWS_SECRET_ACCESS_KEY: 'real-secret' });
    const local = createDatabase({ tableName: 't', region: 'eu-central-1', endpoint: server.endpoint });
    try {
      server.answer(json(200, {}));
      await local.client.send(new GetCommand({ TableName: 't', Key: { pk: 'a' } }));
      expect(server.received[0]?.headers.authorization).toContain('Credential=local/');
      expect(server.received[0]?.headers.authorization).not.toContain('AKIAREALKEY');
    } finally {
      process.env = saved;
      local.client.destroy();
      await server.close();
    }
  });

  it('gives each attempt 30 s against DynamoDB Local and 5 s on AWS', async () => {
    const local = createDatabase({ tableName: 't', region: 'eu-central-1', endpoint: 'http://127.0.0.1:1' });
    const aws = createDatabase({ tableName: 't', region: 'eu-central-1' });
    const handlerConfig = (db: typeof local) =>
      (db.client.config.requestHandler as unknown as { configProvider: Promise<Record<string, unknown>> })
        .configProvider;
    expect(await handlerConfig(local)).toMatchObject({ requestTimeout: 30_000, throwOnRequestTimeout: true });
    expect(await handlerConfig(aws)).toMatchObject({ requestTimeout: 5000, throwOnRequestTimeout: true });
    for (const db of [local, aws]) db.client.destroy();
  });

  it('a hung attempt fails at its timeout as a TimeoutError and is retried, 3 attempts in all', async () => {
    const server = await startScriptedServer();
    const db = createDatabase({
      tableName: 't',
      region: 'eu-central-1',
      endpoint: server.endpoint,
      requestTimeoutMs: 200,
    });
    try {
      server.answer(hang, hang, hang);
      const error = await db.client
        .send(new GetCommand({ TableName: 't', Key: { pk: 'a' } }))
        .catch((e) => e);
      expect(error).toMatchObject({ name: 'TimeoutError', $metadata: { attempts: 3 } });
      expect(isTransientDbFailure(error)).toBe(true);
      expect(server.received).toHaveLength(3);
    } finally {
      db.client.destroy();
      await server.close();
    }
  });
});
