import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createHandler } from '../../../functions/create-webhook';
import { handler as deleteHandler } from '../../../functions/delete-webhook';
import { handler as deliveriesHandler } from '../../../functions/list-webhook-deliveries';
import { handler as listHandler } from '../../../functions/list-webhooks';
import { handler as revokeKeyHandler } from '../../../functions/revoke-api-key';
import { handler as rollKeyHandler } from '../../../functions/roll-api-key';
import { handler as testHandler } from '../../../functions/test-webhook';
import { createApiKey } from '../../../lib/api-keys/service';
import { createSeal } from '../../../lib/crypto/seal';
import { keys } from '../../../lib/db/keys';
import { putEndpointDisabled } from '../../../lib/db/webhooks';
import { countInWindow } from '../../../lib/db/window-counters';
import { auditEvent, systemContext } from '../../../lib/domain/audit-event';
import { MAX_WEBHOOK_ENDPOINTS, TEST_DELIVERIES_PER_MINUTE } from '../../../lib/domain/webhook';
import { egress, webhookDeps, webhookSecrets } from '../../../lib/runtime';
import { drainLocalQueue } from '../../../lib/webhooks/drain';
import { webhookLocalQueue } from '../../../lib/webhooks/local-queue';
import { secretBinding } from '../../../lib/webhooks/secrets';
import { deleteEndpoint, sendTestDelivery } from '../../../lib/webhooks/service';
import { type InvokeResult, invoke } from '../../support/events';
import { bearer, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { captureOutput } from '../../support/output';
import { type Receiver, startReceiver } from '../../support/webhook-receiver';

const create = (headers: Record<string, string>, body: unknown) =>
  invoke(createHandler, { method: 'POST', path: '/api/webhooks', headers, body });
const list = (headers: Record<string, string>) => invoke(listHandler, { path: '/api/webhooks', headers });
const withId =
  (method: string, suffix: string, handler: unknown) =>
  (headers: Record<string, string>, id: string, query?: Record<string, string>) =>
    invoke(handler, {
      method,
      path: `/api/webhooks/${id}${suffix}`,
      resource: `/api/webhooks/{id}${suffix}`,
      pathParameters: { id },
      headers,
      ...(query ? { query } : {}),
    });
const remove = withId('DELETE', '', deleteHandler);
const deliveries = withId('GET', '/deliveries', deliveriesHandler);
const sendTest = withId('POST', '/test', testHandler);

const admin = (tenant: TestTenant) => bearer(tenant.users.ADMIN.token);

/** Delivers every due message of the local queue once, at the real time (the schedule test drives a clock). */
const drain = () =>
  drainLocalQueue({ queue: webhookLocalQueue(db), deps: { db, secrets: webhookSecrets, egress } });

let tenant: TestTenant;
let other: TestTenant;
let receiver: Receiver;
beforeAll(async () => {
  [tenant, other] = await Promise.all([
    createTestTenant({ plan: 'enterprise', kpiTypes: [] }),
    createTestTenant({ plan: 'enterprise', kpiTypes: [] }),
  ]);
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

describe('POST /webhooks', () => {
  it('creates an active endpoint and shows its Standard Webhooks secret in the 201 only', async () => {
    const result = await create(admin(tenant), {
      url: receiver.url,
      eventTypes: ['api_key.revoked', 'api_key.rolled'],
      description: 'Security channel',
    });
    expect(result.status).toBe(201);
    const { secret, ...endpoint } = result.body;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(endpoint).toMatchObject({
      url: receiver.url,
      eventTypes: ['api_key.revoked', 'api_key.rolled'],
      description: 'Security channel',
      status: 'active',
      disabledAt: null,
      createdBy: { type: 'user', userId: tenant.users.ADMIN.id },
    });
    // Never again: not in the list, not in the log, and not raw in the table.
    const listed = await list(admin(tenant));
    expect(listed.body.items.map((item: { id: string }) => item.id)).toContain(endpoint.id);
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(6));
    expect(JSON.stringify((await deliveries(admin(tenant), endpoint.id)).body)).not.toContain(
      secret.slice(6),
    );
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.webhookEndpoint(tenant.tenant.id, endpoint.id) }),
    );
    expect(JSON.stringify(Item)).not.toContain(secret.slice(6));
    // Sealed with the secrets key (w2.), not with a key derived from the JWT key (w1.).
    expect(Item?.sealedSecret).toMatch(/^w2\./);
    await remove(admin(tenant), endpoint.id);
  });

  it('keeps the secret out of the log lines of its creation', async () => {
    const { result, lines } = await captureOutput(() =>
      create(admin(tenant), { url: receiver.url, eventTypes: ['api_key.revoked'] }),
    );
    expect(result.status).toBe(201);
    expect(lines.some((line) => line.audit === 'webhook.created')).toBe(true);
    expect(JSON.stringify(lines)).not.toContain(result.body.secret.slice(6));
    await remove(admin(tenant), result.body.id);
  });

  it('logs the URL’s origin and a hash of its path and query, which may hold a secret (Slack-style URLs)', async () => {
    const origin = new URL(receiver.url).origin;
    const url = `${origin}/services/T0001/B0002/XySecretTokenInThePath?token=query-secret-123`;
    const { result, lines } = await captureOutput(() =>
      create(admin(tenant), { url, eventTypes: ['api_key.revoked'] }),
    );
    expect(result.status).toBe(201);
    const line = lines.find((entry) => entry.audit === 'webhook.created');
    expect(line).toMatchObject({ urlOrigin: origin, urlRestSha256: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(JSON.stringify(lines)).not.toMatch(/XySecretTokenInThePath|query-secret-123|T0001/);
    // The same URL hashes alike, another one not: lines can still be matched to an endpoint.
    const again = await captureOutput(() => create(admin(tenant), { url, eventTypes: ['kpi.quiet'] }));
    const other = await captureOutput(() =>
      create(admin(tenant), { url: `${url}x`, eventTypes: ['kpi.quiet'] }),
    );
    const hashOf = (captured: typeof again) =>
      captured.lines.find((entry) => entry.audit === 'webhook.created')?.urlRestSha256;
    expect(hashOf(again)).toBe(line?.urlRestSha256);
    expect(hashOf(other)).not.toBe(line?.urlRestSha256);
    for (const created of [result, again.result, other.result]) await remove(admin(tenant), created.body.id);
  });

  it('400 naming the field: a URL that is not https (http only to this machine), with credentials, or malformed', async () => {
    for (const url of [
      'http://example.com/hooks',
      'ftp://example.com/hooks',
      'https://user:pw@example.com/hooks',
      'not a url',
      '',
    ]) {
      const result = await create(admin(tenant), { url, eventTypes: ['kpi.quiet'] });
      expect(result.status, url).toBe(400);
      expect(result.headers['content-type']).toBe('application/problem+json');
      expect(
        result.body.errors.map((e: { path: string }) => e.path),
        url,
      ).toEqual(['url']);
    }
    for (const url of ['http://localhost:9/x', 'http://127.0.0.1:9/x', 'http://[::1]:9/x']) {
      const result = await create(admin(tenant), { url, eventTypes: ['kpi.quiet'] });
      expect(result.status, url).toBe(201);
      await remove(admin(tenant), result.body.id);
    }
  });

  it('400 naming the field: no event type, an unknown one, a missing url, an unknown field, a long description', async () => {
    const cases: [unknown, string][] = [
      [{ url: receiver.url, eventTypes: [] }, 'eventTypes'],
      [{ url: receiver.url, eventTypes: ['kpi.loud'] }, 'eventTypes[0]'],
      [{ eventTypes: ['kpi.quiet'] }, 'url'],
      [{ url: receiver.url, eventTypes: ['kpi.quiet'], secret: 'mine' }, 'secret'],
      [{ url: receiver.url, eventTypes: ['kpi.quiet'], description: 'x'.repeat(201) }, 'description'],
    ];
    for (const [body, path] of cases) {
      const result = await create(admin(tenant), body);
      expect(result.status, path).toBe(400);
      expect(
        result.body.errors.map((e: { path: string }) => e.path),
        path,
      ).toContain(path);
    }
  });

  it('400 for malformed JSON and an empty body', async () => {
    for (const body of ['{"url":', '']) {
      const result = await invoke(createHandler, {
        method: 'POST',
        path: '/api/webhooks',
        headers: { ...admin(tenant), 'Content-Type': 'application/json' },
        body,
      });
      expect(result.status).toBe(400);
      expect(result.headers['content-type']).toBe('application/problem+json');
    }
  });

  it(`allows ${MAX_WEBHOOK_ENDPOINTS} endpoints per tenant, then 409; deleting one frees its place`, async () => {
    const owner = await createTestTenant({ kpiTypes: [] });
    const ids: string[] = [];
    const results = await Promise.all(
      Array.from({ length: MAX_WEBHOOK_ENDPOINTS + 2 }, () =>
        create(admin(owner), { url: receiver.url, eventTypes: ['kpi.quiet'] }),
      ),
    );
    for (const result of results) if (result.status === 201) ids.push(result.body.id);
    expect(ids).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    const refused = results.filter((result) => result.status === 409);
    expect(refused).toHaveLength(2);
    expect(refused[0]!.body).toMatchObject({
      type: expect.stringMatching(/\/webhook-limit-reached$/),
      limit: 10,
    });
    expect((await remove(admin(owner), ids[0]!)).status).toBe(204);
    expect((await create(admin(owner), { url: receiver.url, eventTypes: ['kpi.quiet'] })).status).toBe(201);
  });
});

describe('DELETE /webhooks/{id} and another tenant’s endpoint', () => {
  it('204, and 204 again; the endpoint leaves the list and its log is 404', async () => {
    const { body } = await create(admin(tenant), { url: receiver.url, eventTypes: ['kpi.quiet'] });
    expect((await remove(admin(tenant), body.id)).status).toBe(204);
    expect((await remove(admin(tenant), body.id)).status).toBe(204);
    const listed = await list(admin(tenant));
    expect(listed.body.items.map((item: { id: string }) => item.id)).not.toContain(body.id);
    expect((await deliveries(admin(tenant), body.id)).status).toBe(404);
  });

  it('404 for another tenant’s endpoint, as for an unknown one, on every route; it stays', async () => {
    const { body } = await create(admin(other), { url: receiver.url, eventTypes: ['kpi.quiet'] });
    for (const id of [body.id, randomUUID()]) {
      for (const call of [remove, deliveries, sendTest]) {
        const result = await call(admin(tenant), id);
        expect(result.status).toBe(404);
        expect(result.body.type).toMatch(/\/not-found$/);
      }
    }
    expect((await list(admin(other))).body.items.map((item: { id: string }) => item.id)).toContain(body.id);
    expect((await list(admin(tenant))).body.items.map((item: { id: string }) => item.id)).not.toContain(
      body.id,
    );
    expect(receiver.received.filter((r) => r.body.includes(body.id))).toHaveLength(0);
  });

  it('400 naming the id when it is not a UUID', async () => {
    const result = await remove(admin(tenant), 'nope');
    expect(result.status).toBe(400);
    expect(result.body.errors.map((e: { path: string }) => e.path)).toEqual(['id']);
  });
});

describe('key events', () => {
  it('revoking a key sends api_key.revoked exactly once, signed; revoking it again sends nothing', async () => {
    const owner = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
    const hooks = await startReceiver();
    try {
      const created = await create(admin(owner), { url: hooks.url, eventTypes: ['api_key.revoked'] });
      hooks.secret = created.body.secret;
      const key = await createApiKey(db, { tenantId: owner.tenant.id, name: 'Leaked' });
      const revoke = () =>
        invoke(revokeKeyHandler, {
          method: 'DELETE',
          path: `/api/api-keys/${key.id}`,
          pathParameters: { id: key.id },
          headers: admin(owner),
        });
      expect((await revoke()).status).toBe(200);
      expect((await revoke()).status).toBe(200);
      await drain();
      await drain();
      expect(hooks.received).toHaveLength(1);
      const [request] = hooks.received as [(typeof hooks.received)[number]];
      expect(request.verified).toEqual({ ok: true, payload: expect.anything() });
      const body = JSON.parse(request.body);
      expect(body).toEqual({
        type: 'api_key.revoked',
        timestamp: expect.any(String),
        data: {
          keyId: key.id,
          keyPrefix: key.prefix,
          name: 'Leaked',
          revokedBy: { type: 'user', userId: owner.users.ADMIN.id },
        },
      });
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      const log = await deliveries(admin(owner), created.body.id);
      expect(log.body.items).toHaveLength(1);
      expect(log.body.items[0]).toMatchObject({
        id: request.headers['webhook-id'],
        eventType: 'api_key.revoked',
        status: 'succeeded',
        attempts: [{ attempt: 1, httpStatus: 204, error: null }],
        nextAttemptAt: null,
      });
    } finally {
      await hooks.close();
    }
  });

  it('rolling a key sends api_key.rolled exactly once, only to endpoints subscribed to it', async () => {
    const owner = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
    const [rolls, others] = await Promise.all([startReceiver(), startReceiver()]);
    try {
      rolls.secret = (
        await create(admin(owner), { url: rolls.url, eventTypes: ['api_key.rolled'] })
      ).body.secret;
      others.secret = (
        await create(admin(owner), { url: others.url, eventTypes: ['kpi.quiet'] })
      ).body.secret;
      const key = await createApiKey(db, { tenantId: owner.tenant.id, name: 'Cron' });
      const rolled = await invoke(rollKeyHandler, {
        method: 'POST',
        path: `/api/api-keys/${key.id}/roll`,
        pathParameters: { id: key.id },
        headers: admin(owner),
        body: { gracePeriodHours: 1 },
      });
      expect(rolled.status).toBe(201);
      await drain();
      expect(others.received).toHaveLength(0);
      expect(rolls.received).toHaveLength(1);
      expect(rolls.received[0]!.verified.ok).toBe(true);
      expect(JSON.parse(rolls.received[0]!.body)).toMatchObject({
        type: 'api_key.rolled',
        data: { keyId: key.id, newKeyId: rolled.body.id, oldKeyExpiresAt: rolled.body.previous.expiresAt },
      });
    } finally {
      await Promise.all([rolls.close(), others.close()]);
    }
  });
});

describe('POST /webhooks/{id}/test', () => {
  it('sends one signed webhook.test now and answers with its result, which the log keeps', async () => {
    const created = await create(admin(tenant), { url: receiver.url, eventTypes: ['kpi.quiet'] });
    receiver.secret = created.body.secret;
    const before = receiver.received.length;
    const result = await sendTest(admin(tenant), created.body.id);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      eventType: 'webhook.test',
      status: 'succeeded',
      attempts: [{ attempt: 1, httpStatus: 204, error: null }],
      nextAttemptAt: null,
    });
    expect(receiver.received).toHaveLength(before + 1);
    const request = receiver.received.at(-1)!;
    expect(request.verified.ok).toBe(true);
    expect(JSON.parse(request.body)).toMatchObject({
      type: 'webhook.test',
      data: { webhookId: created.body.id },
    });
    expect(request.headers['webhook-id']).toBe(result.body.id);
    expect((await deliveries(admin(tenant), created.body.id)).body.items[0]).toEqual(result.body);
    await remove(admin(tenant), created.body.id);
  });

  it('signs with a secret sealed before the secrets key existed (w1., a key derived from the JWT key)', async () => {
    const created = await create(admin(tenant), { url: receiver.url, eventTypes: ['kpi.quiet'] });
    receiver.secret = created.body.secret;
    const legacy = createSeal(process.env.JWT_SECRET as string, {
      label: 'strategy-service webhook secret v1',
      version: 'w1.',
    });
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.webhookEndpoint(tenant.tenant.id, created.body.id),
        UpdateExpression: 'SET sealedSecret = :sealed',
        ExpressionAttributeValues: {
          ':sealed': await legacy.seal(created.body.secret, secretBinding(tenant.tenant.id, created.body.id)),
        },
      }),
    );
    const result = await sendTest(admin(tenant), created.body.id);
    expect(result.body).toMatchObject({ status: 'succeeded', attempts: [{ httpStatus: 204 }] });
    expect(receiver.received.at(-1)!.verified.ok).toBe(true);
    await remove(admin(tenant), created.body.id);
  });

  it('is sent to a disabled endpoint too, which stays disabled', async () => {
    const created = await create(admin(tenant), { url: receiver.url, eventTypes: ['kpi.quiet'] });
    receiver.secret = created.body.secret;
    await putEndpointDisabled(
      db,
      tenant.tenant.id,
      created.body.id,
      new Date().toISOString(),
      'test',
      auditEvent(systemContext('test'), {
        type: 'webhook.disabled',
        tenantId: tenant.tenant.id,
        target: { type: 'webhook', id: created.body.id },
      }),
    );
    const result = await sendTest(admin(tenant), created.body.id);
    expect(result.body).toMatchObject({ status: 'succeeded', attempts: [{ httpStatus: 204 }] });
    expect(receiver.received.at(-1)!.verified.ok).toBe(true);
    const listed = (await list(admin(tenant))).body.items.find(
      (item: { id: string }) => item.id === created.body.id,
    );
    expect(listed).toMatchObject({ status: 'disabled', disabledReason: 'test' });
    await remove(admin(tenant), created.body.id);
  });

  it('reports a failure without retrying it: a 500, and a redirect, which is not followed', async () => {
    const hooks = await startReceiver();
    try {
      const created = await create(admin(tenant), { url: hooks.url, eventTypes: ['kpi.quiet'] });
      hooks.answer = { status: 500 };
      const failed = await sendTest(admin(tenant), created.body.id);
      expect(failed.body).toMatchObject({ status: 'failed', attempts: [{ httpStatus: 500, error: null }] });
      hooks.answer = { status: 302, headers: { Location: `${receiver.url}/elsewhere` } };
      const before = receiver.received.length;
      const redirected = await sendTest(admin(tenant), created.body.id);
      expect(redirected.body).toMatchObject({
        status: 'failed',
        attempts: [{ httpStatus: 302, error: 'redirect' }],
      });
      expect(receiver.received).toHaveLength(before);
      expect(await drain()).toEqual({ received: 0, done: 0, retried: 0 });
      await remove(admin(tenant), created.body.id);
    } finally {
      await hooks.close();
    }
  });
});

describe('POST /webhooks/{id}/test: what it may reach and how often', () => {
  it('sends nothing to an address the egress rules refuse, and says only "refused", without a duration', async () => {
    // The local stage accepts any https URL as text; its egress rules still reach only this machine.
    const created = await create(admin(tenant), {
      url: 'https://10.0.0.1:8443/hooks',
      eventTypes: ['kpi.quiet'],
    });
    expect(created.status).toBe(201);
    const result = await sendTest(admin(tenant), created.body.id);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      status: 'failed',
      attempts: [{ attempt: 1, httpStatus: null, error: 'refused', durationMs: 0 }],
    });
    // No port, host or timing of the network behind the service anywhere in the answer.
    expect(JSON.stringify(result.body.attempts)).not.toMatch(/10\.0\.0\.1|8443|ECONN|ms\b/);
    await remove(admin(tenant), created.body.id);
  });

  it(`sends a tenant at most ${TEST_DELIVERIES_PER_MINUTE} test deliveries a minute, then 429 with Retry-After until the minute ends; other tenants are not counted`, async () => {
    const [busy, quiet] = await Promise.all([
      createTestTenant({ plan: 'enterprise', kpiTypes: [] }),
      createTestTenant({ plan: 'enterprise', kpiTypes: [] }),
    ]);
    const endpoint = (await create(admin(busy), { url: receiver.url, eventTypes: ['kpi.quiet'] })).body;
    const minute = Math.floor(Date.now() / 60_000) * 60_000 + 120_000;
    const at = (offsetMs: number) => ({ ...webhookDeps, egress, now: () => minute + offsetMs });
    for (let sent = 1; sent <= TEST_DELIVERIES_PER_MINUTE; sent++) {
      const delivery = await sendTestDelivery(at(sent * 1000), busy.tenant.id, endpoint.id);
      expect(delivery.status).toBe('succeeded');
    }
    const before = receiver.received.length;
    const refused = await sendTestDelivery(at(45_000), busy.tenant.id, endpoint.id).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', headers: { 'Retry-After': '15' } });
    expect(receiver.received).toHaveLength(before);
    // The next minute admits it again.
    expect((await sendTestDelivery(at(60_000), busy.tenant.id, endpoint.id)).status).toBe('succeeded');
    // Another tenant's deliveries in the busy minute are its own.
    const other = (await create(admin(quiet), { url: receiver.url, eventTypes: ['kpi.quiet'] })).body;
    expect((await sendTestDelivery(at(50_000), quiet.tenant.id, other.id)).status).toBe('succeeded');

    // Through the route: a problem document with Retry-After, once this minute's count is used up. Close
    // to the end of a minute the setup waits for the next one, so the route call falls in the minute counted.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    const windowStart = Math.floor(Date.now() / 60_000) * 60;
    for (let i = 0; i < TEST_DELIVERIES_PER_MINUTE; i++) {
      await countInWindow(db, keys.webhookTests(quiet.tenant.id), { windowStart, windowSeconds: 60 });
    }
    const answer = await sendTest(admin(quiet), other.id);
    expect(answer.status).toBe(429);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.body.type).toMatch(/rate-limit-exceeded$/);
    expect(answer.body.detail).toMatch(/10 test deliveries per minute/);
    expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(60);
  });
});

describe('GET /webhooks/{id}/deliveries', () => {
  it('pages newest first', async () => {
    const created = await create(admin(tenant), { url: receiver.url, eventTypes: ['kpi.quiet'] });
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push((await sendTest(admin(tenant), created.body.id)).body.id);
    const first = await deliveries(admin(tenant), created.body.id, { limit: '2' });
    expect(first.body.items.map((d: { id: string }) => d.id)).toEqual([sent[2], sent[1]]);
    const second = await deliveries(admin(tenant), created.body.id, {
      limit: '2',
      cursor: first.body.nextCursor,
    });
    expect(second.body.items.map((d: { id: string }) => d.id)).toEqual([sent[0]]);
    expect(second.body.nextCursor).toBeUndefined();
    await remove(admin(tenant), created.body.id);
  });
});

/**
 * Each case on an endpoint of its own, deleted afterwards, so the shared cases never reach the
 * tenant's maximum.
 */
const viaRoute =
  (call: (headers: Record<string, string>, id: string) => Promise<InvokeResult>) =>
  async (headers: Record<string, string>, owner: TestTenant) => {
    const { body } = await create(admin(owner), { url: receiver.url, eventTypes: ['kpi.quiet'] });
    try {
      return await call(headers, body.id);
    } finally {
      await deleteEndpoint(db, owner.tenant.id, body.id);
    }
  };
describeJwtAuth(
  'POST /webhooks',
  async (headers, owner) => {
    const result = await create(headers, { url: receiver.url, eventTypes: ['kpi.quiet'] });
    if (result.status === 201) await deleteEndpoint(db, owner.tenant.id, result.body.id);
    return result;
  },
  { roles: ['ADMIN'] },
);
describeJwtAuth(
  'GET /webhooks',
  viaRoute((headers) => list(headers)),
  { roles: ['ADMIN'] },
);
describeJwtAuth('DELETE /webhooks/{id}', viaRoute(remove), { roles: ['ADMIN'] });
describeJwtAuth('GET /webhooks/{id}/deliveries', viaRoute(deliveries), { roles: ['ADMIN'] });
describeJwtAuth('POST /webhooks/{id}/test', viaRoute(sendTest), { roles: ['ADMIN'] });
