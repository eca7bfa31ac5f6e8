import { describe, expect, it } from 'vitest';
import { createDatabase } from '../../../../lib/db/client';
import { GetCommand } from '../../../../lib/db/dynamo';
import { json, startScriptedServer, verifySignature } from '../../../support/scripted-server';

describe('createDatabase', () => {
  it('uses the regional endpoint with 5 s per attempt on AWS, and 30 s for DynamoDB Local', () => {
    const aws = createDatabase({ tableName: 't', region: 'eu-central-1' });
    expect(aws.client.config).toEqual({
      region: 'eu-central-1',
      endpoint: 'https://dynamodb.eu-central-1.amazonaws.com',
      maxAttempts: 3,
      requestTimeoutMs: 5000,
    });
    const local = createDatabase({
      tableName: 't',
      region: 'eu-central-1',
      endpoint: 'http://127.0.0.1:8000',
    });
    expect(local.client.config).toMatchObject({
      endpoint: 'http://127.0.0.1:8000',
      requestTimeoutMs: 30_000,
    });
    const tuned = createDatabase({
      tableName: 't',
      region: 'eu-central-1',
      endpoint: 'http://127.0.0.1:8000',
      requestTimeoutMs: 250,
      maxAttempts: 1,
    });
    expect(tuned.client.config).toMatchObject({ requestTimeoutMs: 250, maxAttempts: 1 });
    for (const db of [aws, local, tuned]) db.client.destroy();
  });

  it('never sends real credentials to DynamoDB Local: it signs as "local"', async () => {
    const server = await startScriptedServer();
    const local = createDatabase({
      tableName: 't',
      region: 'eu-central-1',
      endpoint: server.endpoint,
      credentials: async () => ({ accessKeyId: 'AKIAREALKEY', secretAccessKey: 'real-secret' }),
    });
    try {
      server.answer(json(200, {}));
      await local.client.send(new GetCommand({ TableName: 't', Key: { pk: 'a' } }));
      expect(server.received[0]?.headers.authorization).toContain('Credential=local/');
      expect(await verifySignature(server.received[0]!, 'local')).toBe(true);
    } finally {
      local.client.destroy();
      await server.close();
    }
  });
});
