import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createStackTenant, loginAs, request } from '../support/http';
import { type Receiver, startReceiver } from '../support/webhook-receiver';

/**
 * Webhooks through the running local stack over HTTP: the functions in serverless-offline publish to
 * the local queue in the table, and `npm run alerts:run`, another process, delivers from it to a
 * receiver on this machine that verifies every signature.
 */
const root = resolve(__dirname, '..', '..');

/**
 * As a developer runs it beside `npm start`: no database setting, it finds the stack's DynamoDB Local
 * (on a port of the test's choosing) in the stack's demo record.
 */
const alertsRun = async () => {
  const { DYNAMODB_ENDPOINT: _endpoint, DYNAMODB_PORT: _port, ...env } = process.env;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'scripts/alerts-run.ts'],
    {
      cwd: root,
      env: {
        ...env,
        SEED_FILE: inject('seedFile'),
        TABLE_NAME: 'strategy-service-local',
        JWT_SECRET: inject('stackJwtSecret'),
        SECRETS_KEY: inject('stackSecretsKey'),
      },
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { received: number; done: number };
};

let receiver: Receiver;
let auth: Record<string, string>;
beforeAll(async () => {
  receiver = await startReceiver();
  const { email, password } = await createStackTenant('enterprise');
  auth = { Authorization: `Bearer ${(await loginAs(email, password)).token}` };
});
afterAll(() => receiver.close());

describe('webhooks on the local stack', () => {
  it('revoking a key over HTTP reaches a verifying receiver through npm run alerts:run, once', async () => {
    const created = await request('POST', '/webhooks', {
      headers: auth,
      body: { url: receiver.url, eventTypes: ['api_key.revoked'] },
    });
    expect(created.status).toBe(201);
    receiver.secret = created.body.secret;
    const key = await request('POST', '/api-keys', { headers: auth, body: { name: 'e2e webhook' } });
    expect((await request('DELETE', `/api-keys/${key.body.id}`, { headers: auth })).status).toBe(200);
    expect((await request('DELETE', `/api-keys/${key.body.id}`, { headers: auth })).status).toBe(200);
    expect((await alertsRun()).done).toBeGreaterThanOrEqual(1);
    const mine = receiver.received.filter((r) => r.body.includes(key.body.id));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.verified).toMatchObject({ ok: true, payload: { type: 'api_key.revoked' } });
    const log = await request('GET', `/webhooks/${created.body.id}/deliveries`, { headers: auth });
    expect(log.body.items).toMatchObject([
      { status: 'succeeded', attempts: [{ attempt: 1, httpStatus: 204 }] },
    ]);
    expect(JSON.stringify(log.body)).not.toContain(created.body.secret.slice(6));
  });

  it('a test delivery answers with its result at once; the endpoint can be deleted', async () => {
    const created = await request('POST', '/webhooks', {
      headers: auth,
      body: { url: receiver.url, eventTypes: ['kpi.quiet'] },
    });
    receiver.secret = created.body.secret;
    const sent = await request('POST', `/webhooks/${created.body.id}/test`, { headers: auth });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ eventType: 'webhook.test', status: 'succeeded' });
    expect(receiver.received.at(-1)!.verified.ok).toBe(true);
    expect((await request('DELETE', `/webhooks/${created.body.id}`, { headers: auth })).status).toBe(204);
    const listed = await request('GET', '/webhooks', { headers: auth });
    expect(listed.body.items.map((item: { id: string }) => item.id)).not.toContain(created.body.id);
  });

  it('refuses a URL that is not http to this machine or https, naming the field', async () => {
    const refused = await request('POST', '/webhooks', {
      headers: auth,
      body: { url: 'http://example.com/hooks', eventTypes: ['kpi.quiet'] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: 'url', message: expect.stringMatching(/https/) }]);
  });
});
