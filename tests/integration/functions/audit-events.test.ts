import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createKeyHandler } from '../../../functions/create-api-key';
import { handler as createPullHandler } from '../../../functions/create-pull-integration';
import { handler as createWebhookHandler } from '../../../functions/create-webhook';
import { handler as deletePullHandler } from '../../../functions/delete-pull-integration';
import { handler as deleteWebhookHandler } from '../../../functions/delete-webhook';
import { handler } from '../../../functions/list-audit-events';
import { handler as loginHandler } from '../../../functions/login';
import { handler as logoutHandler } from '../../../functions/logout';
import { handler as revokeKeyHandler } from '../../../functions/revoke-api-key';
import { handler as rollKeyHandler } from '../../../functions/roll-api-key';
import { handler as runPullHandler } from '../../../functions/run-pull-integration';
import { handler as updateKeyHandler } from '../../../functions/update-api-key';
import { handler as updateKpiHandler } from '../../../functions/update-kpi';
import { handler as updatePullHandler } from '../../../functions/update-pull-integration';
import { hashApiKey } from '../../../lib/api-keys/key-format';
import { revokeLeakedKeys } from '../../../lib/api-keys/leaks';
import { createApiKey, revokeApiKey, rollApiKey } from '../../../lib/api-keys/service';
import { getApiKeyByHash } from '../../../lib/db/api-keys';
import { keys } from '../../../lib/db/keys';
import { getIntegration } from '../../../lib/db/pull-integrations';
import { getUser } from '../../../lib/db/users';
import { putEndpointDisabled } from '../../../lib/db/webhooks';
import { auditEvent, systemContext } from '../../../lib/domain/audit-event';
import { NEXT_CURSOR_HEADER } from '../../../lib/http/route';
import { updateKpi } from '../../../lib/kpis/settings';
import { createIntegration, updateIntegration } from '../../../lib/pull/definitions';
import { removeIntegration } from '../../../lib/pull/service';
import { pullDeps, webhookDeps } from '../../../lib/runtime';
import { createEndpoint, deleteEndpoint, listEndpoints } from '../../../lib/webhooks/service';
import { apiEvent, type InvokeResult, invoke, lambdaContext } from '../../support/events';
import { injectFaults, throttling } from '../../support/faults';
import { bearer, createTestTenant, db, publish, type TestTenant } from '../../support/fixtures';
import { instrument } from '../../support/instrumented-db';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { type PullSource, startPullSource } from '../../support/pull-source';

/**
 * GET /audit-events and the events behind it: every audited change is stored with its actor, source
 * and request, in the tenant's log only; a fault on the event's write leaves no change stored.
 */

const IP = '198.51.100.23';
const AGENT = 'audit-test/1.0';
const PULL = ['kpi_push_measurement', 'kpi_api_integration'] as const;

/** A request from IP with AGENT, as API Gateway delivers it. */
const call = (route: unknown, input: Parameters<typeof invoke>[1]) =>
  invoke(route, { sourceIp: IP, ...input, headers: { 'User-Agent': AGENT, ...input.headers } });

const list = (headers: Record<string, string>, query?: Record<string, string | string[]>) =>
  invoke(handler, { path: '/api/audit-events', headers, ...(query ? { query } : {}) });

/** The NDJSON export: its lines parsed, and its headers. */
const exportOf = async (headers: Record<string, string>, query: Record<string, string | string[]> = {}) => {
  const result = await handler(apiEvent({ path: '/api/audit-events', headers, query }), lambdaContext());
  return {
    status: result.statusCode,
    headers: Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
    ),
    lines: result.body
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line)),
  };
};

const withId =
  (method: string, path: string, route: unknown, resource: string) =>
  (id: string, headers: Record<string, string>, body?: unknown) =>
    call(route, {
      method,
      path: path.replace('{id}', id),
      resource,
      pathParameters: resource.includes('{kpiId}') ? { kpiId: id } : { id },
      headers,
      ...(body === undefined ? {} : { body }),
    });
const roll = withId('POST', '/api/api-keys/{id}/roll', rollKeyHandler, '/api/api-keys/{id}/roll');
const revoke = withId('DELETE', '/api/api-keys/{id}', revokeKeyHandler, '/api/api-keys/{id}');
const patchKey = withId('PATCH', '/api/api-keys/{id}', updateKeyHandler, '/api/api-keys/{id}');
const patchKpi = withId('PATCH', '/api/kpis/{id}', updateKpiHandler, '/api/kpis/{kpiId}');
const deleteWebhook = withId('DELETE', '/api/webhooks/{id}', deleteWebhookHandler, '/api/webhooks/{id}');
const patchPull = withId(
  'PATCH',
  '/api/integrations/pull/{id}',
  updatePullHandler,
  '/api/integrations/pull/{id}',
);
const deletePull = withId(
  'DELETE',
  '/api/integrations/pull/{id}',
  deletePullHandler,
  '/api/integrations/pull/{id}',
);
const runPull = withId(
  'POST',
  '/api/integrations/pull/{id}/run',
  runPullHandler,
  '/api/integrations/pull/{id}/run',
);

const admin = (tenant: TestTenant) => bearer(tenant.users.ADMIN.token);
const expectStatus = (result: InvokeResult, status: number) =>
  expect(result.status, JSON.stringify(result.body)).toBe(status);

let tenant: TestTenant;
let other: TestTenant;
let source: PullSource;
beforeAll(async () => {
  [tenant, other] = await Promise.all([
    createTestTenant({ plan: 'enterprise', features: [...PULL], kpiTypes: ['BSC_KPI'] }),
    createTestTenant({ plan: 'enterprise', features: [...PULL], kpiTypes: ['BSC_KPI'] }),
  ]);
  source = await startPullSource();
  source.answers['/mrr'] = { json: { data: { mrr: 1 } } };
  source.answers['/down'] = { status: 500, json: {} };
});
afterAll(() => source.close());

const pullDefinition = (owner: TestTenant, path = '/mrr') => ({
  name: 'Billing MRR',
  url: source.url(path),
  auth: { type: 'none' },
  schedule: { every: 'day', at: '06:30' },
  measurements: [{ kpiId: owner.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'data.mrr' }],
});

/** Every event of the tenant, newest first, read through the route page by page. */
const allEvents = async (owner: TestTenant, query: Record<string, string | string[]> = {}) => {
  const events: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(admin(owner), { ...query, limit: '50', ...(cursor ? { cursor } : {}) });
    expectStatus(page, 200);
    events.push(...page.body.items);
    cursor = page.body.nextCursor;
  } while (cursor);
  return events;
};

describe('GET /audit-events: each audited change, with its actor and source', () => {
  it('lists key, KPI, webhook, pull integration and session changes, newest first, each with actor, target, source and request', async () => {
    const owner = await createTestTenant({ plan: 'enterprise', features: [...PULL], kpiTypes: ['BSC_KPI'] });
    const me = owner.users.ADMIN;
    const created = await call(createKeyHandler, {
      method: 'POST',
      path: '/api/api-keys',
      headers: admin(owner),
      body: { name: 'CI' },
    });
    expectStatus(created, 201);
    expectStatus(await patchKey(created.body.id, admin(owner), { allowedSources: ['203.0.113.7'] }), 200);
    const rolled = await roll(created.body.id, admin(owner), { gracePeriodHours: 1 });
    expectStatus(rolled, 201);
    expectStatus(await revoke(rolled.body.id, admin(owner)), 200);
    const leaked = await createApiKey(db, { tenantId: owner.tenant.id, name: 'leaked' });
    await revokeLeakedKeys(
      db,
      publish,
      [{ token: leaked.key, type: 't', url: 'https://github.com/o/r/blob/s/.env', source: 'content' }],
      {
        origin: { source: { ip: '140.82.112.1', userAgent: 'GitHub-Hookshot' }, requestId: 'gh-1' },
      },
    );
    expectStatus(await patchKpi(owner.kpis[0]!.id, admin(owner), { tolerance: 0.07 }), 200);
    const webhook = await call(createWebhookHandler, {
      method: 'POST',
      path: '/api/webhooks',
      headers: admin(owner),
      body: { url: 'https://hooks.example.com/in/secret-path?token=abc', eventTypes: ['kpi.quiet'] },
    });
    expectStatus(webhook, 201);
    expectStatus(await deleteWebhook(webhook.body.id, admin(owner)), 204);
    const pull = await call(createPullHandler, {
      method: 'POST',
      path: '/api/integrations/pull',
      headers: admin(owner),
      body: pullDefinition(owner),
    });
    expectStatus(pull, 201);
    expectStatus(await patchPull(pull.body.id, admin(owner), { name: 'MRR' }), 200);
    expectStatus(await deletePull(pull.body.id, admin(owner)), 204);
    const login = await call(loginHandler, {
      method: 'POST',
      path: '/api/auth/login',
      body: { email: me.email, password: me.password },
    });
    expectStatus(login, 200);
    expectStatus(
      await call(logoutHandler, {
        method: 'POST',
        path: '/api/auth/logout',
        body: { refreshToken: login.body.refreshToken, everywhere: true },
      }),
      204,
    );

    const events = await allEvents(owner);
    expect(events.map((event) => event.type)).toEqual([
      'logout',
      'sessions.revoked',
      'login.succeeded',
      'integration.deleted',
      'integration.updated',
      'integration.created',
      'webhook.deleted',
      'webhook.created',
      'kpi.updated',
      'api_key.leaked',
      'api_key.created',
      'api_key.revoked',
      'api_key.rolled',
      'api_key.updated',
      'api_key.created',
      // The test tenant's KPI, made by the operator's code before the user's first change.
      'kpi.created',
    ]);
    const byRequest = events.filter((event) => event.target.id !== leaked.id && event.type !== 'kpi.created');
    for (const event of byRequest) {
      expect(event.actor, event.type).toEqual({ type: 'user', id: me.id, email: me.email });
      expect(event.source, event.type).toEqual({ ip: IP, userAgent: AGENT });
      expect(event.requestId, event.type).toEqual(expect.any(String));
    }
    // The key made through the library (no request) is the service's; its leak is GitHub's.
    expect(
      events.find((event) => event.type === 'api_key.created' && event.target.id === leaked.id),
    ).toMatchObject({
      actor: { type: 'system', id: 'service' },
      source: null,
      requestId: null,
    });
    const leak = events.find((event) => event.type === 'api_key.leaked');
    expect(leak).toMatchObject({
      actor: { type: 'github_secret_scanning', id: 'github' },
      target: { type: 'api_key', id: leaked.id },
      source: { ip: '140.82.112.1', userAgent: 'GitHub-Hookshot' },
      requestId: 'gh-1',
      details: { revoked: true, url: 'https://github.com/o/r/blob/s/.env' },
    });
    expect(events.find((event) => event.type === 'kpi.updated')).toMatchObject({
      target: { type: 'kpi', id: owner.kpis[0]!.id },
      details: { tolerance: 0.07, changed: ['tolerance'] },
    });
    expect(events.find((event) => event.type === 'api_key.updated')).toMatchObject({
      target: { type: 'api_key', id: created.body.id },
      details: { renamed: false, allowedSources: '203.0.113.7/32' },
    });
    expect(events.find((event) => event.type === 'api_key.rolled')).toMatchObject({
      target: { type: 'api_key', id: created.body.id },
    });
    // Never a secret, a raw key or a full URL a tenant chose.
    const text = JSON.stringify(events);
    for (const secret of [
      created.body.key,
      rolled.body.key,
      leaked.key,
      webhook.body.secret,
      'secret-path',
      'token=abc',
      me.password,
      login.body.refreshToken,
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(events.find((event) => event.type === 'webhook.created')?.details).toMatchObject({
      urlOrigin: 'https://hooks.example.com',
      urlRestSha256: expect.any(String),
    });
  });

  it('records what the service does on its own in the name of the worker, without a source: a disabled endpoint', async () => {
    const owner = await createTestTenant({ kpiTypes: [] });
    const created = await call(createWebhookHandler, {
      method: 'POST',
      path: '/api/webhooks',
      headers: admin(owner),
      body: { url: 'https://hooks.example.com/in', eventTypes: ['kpi.quiet'] },
    });
    const event = auditEvent(systemContext('webhook-delivery'), {
      type: 'webhook.disabled',
      tenantId: owner.tenant.id,
      target: { type: 'webhook', id: created.body.id },
    });
    expect(await putEndpointDisabled(db, owner.tenant.id, created.body.id, event.at, 'failing', event)).toBe(
      true,
    );
    const [latest] = await allEvents(owner, { type: 'webhook.disabled' });
    expect(latest).toMatchObject({
      type: 'webhook.disabled',
      actor: { type: 'system', id: 'webhook-delivery' },
      source: null,
      requestId: null,
    });
  });

  it('records an integration disabled by a failing run, in the name of the one who ran it', async () => {
    const pull = await call(createPullHandler, {
      method: 'POST',
      path: '/api/integrations/pull',
      headers: admin(tenant),
      body: pullDefinition(tenant, '/down'),
    });
    expectStatus(pull, 201);
    // Failing for two days, three times over: the next failure disables it.
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.pullIntegration(tenant.tenant.id, pull.body.id),
        UpdateExpression: 'SET #status = :failing, consecutiveFailures = :n, failingSince = :since',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':failing': 'failing',
          ':n': 5,
          ':since': new Date(Date.now() - 2 * 86_400_000).toISOString(),
        },
      }),
    );
    expectStatus(await runPull(pull.body.id, admin(tenant)), 200);
    expect((await getIntegration(db, tenant.tenant.id, pull.body.id))?.status).toBe('disabled');
    const events = await allEvents(tenant, { targetId: pull.body.id });
    expect(events.map((event) => event.type)).toEqual([
      'integration.run',
      'integration.disabled',
      'integration.created',
    ]);
    expect(events[1]).toMatchObject({
      actor: { type: 'user', id: tenant.users.ADMIN.id },
      source: { ip: IP },
    });
  });
});

describe('audit events that name no tenant', () => {
  it('a failed login for an unknown e-mail is only logged: no item of any tenant holds it', async () => {
    const email = `nobody-${Date.now()}@example.test`;
    const result = await call(loginHandler, {
      method: 'POST',
      path: '/api/auth/login',
      body: { email, password: 'not-a-password-1' },
    });
    expect(result.status).toBe(401);
    // A test may Scan: every audit item of the table, searched for the address.
    const { Items = [] } = await db.client.send(
      new ScanCommand({
        TableName: db.tableName,
        FilterExpression: 'begins_with(pk, :audit)',
        ExpressionAttributeValues: { ':audit': 'AUDIT#' },
      }),
    );
    expect(Items.length).toBeGreaterThan(0);
    expect(JSON.stringify(Items)).not.toContain(email);
  });
});

describe('GET /audit-events: filters and paging', () => {
  let owner: TestTenant;
  let keyIds: string[];
  beforeAll(async () => {
    owner = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI'] });
    keyIds = [];
    for (const name of ['a', 'b', 'c']) {
      const created = await call(createKeyHandler, {
        method: 'POST',
        path: '/api/api-keys',
        headers: admin(owner),
        body: { name },
      });
      keyIds.push(created.body.id);
    }
    await revoke(keyIds[0]!, admin(owner));
    await patchKpi(owner.kpis[0]!.id, bearer(owner.users.ADMIN.token), { tolerance: 0.03 });
  });

  it('filters by type (repeatable), actor, target and a range of time', async () => {
    const byType = await allEvents(owner, { type: ['api_key.revoked', 'kpi.updated'] });
    expect(byType.map((event) => event.type)).toEqual(['kpi.updated', 'api_key.revoked']);
    expect((await allEvents(owner, { type: 'api_key.created' })).map((event) => event.target.id)).toEqual(
      [...keyIds].reverse(),
    );
    expect((await allEvents(owner, { targetId: keyIds[0]! })).map((event) => event.type)).toEqual([
      'api_key.revoked',
      'api_key.created',
    ]);
    expect(await allEvents(owner, { actorId: owner.users.ADMIN.id })).toHaveLength(5);
    expect(await allEvents(owner, { actorId: owner.users.EDITOR.id })).toEqual([]);
    // By e-mail, as a person types it: trimmed and in any case.
    const byEmail = await allEvents(owner, { actorEmail: ` ${owner.users.ADMIN.email.toUpperCase()} ` });
    expect(byEmail.map((event) => event.id)).toEqual(
      (await allEvents(owner, { actorId: owner.users.ADMIN.id })).map((event) => event.id),
    );
    expect(await allEvents(owner, { actorEmail: owner.users.EDITOR.email })).toEqual([]);
    const all = await allEvents(owner);
    const middle = all[2];
    const from = await allEvents(owner, { from: middle.at });
    expect(from.map((event) => event.id)).toEqual(
      all.filter((event) => event.at >= middle.at).map((event) => event.id),
    );
    const to = await allEvents(owner, { to: middle.at });
    expect(to.map((event) => event.id)).toEqual(
      all.filter((event) => event.at < middle.at).map((event) => event.id),
    );
  });

  it('pages newest first with limit and cursor; the last page has none', async () => {
    const first = await list(admin(owner), { limit: '2' });
    expect(first.body.items).toHaveLength(2);
    const second = await list(admin(owner), { limit: '2', cursor: first.body.nextCursor });
    const third = await list(admin(owner), { limit: '2', cursor: second.body.nextCursor });
    expect(third.body.nextCursor).toBeUndefined();
    const ids = [...first.body.items, ...second.body.items, ...third.body.items].map(
      (event: { id: string }) => event.id,
    );
    expect(ids).toEqual((await allEvents(owner)).map((event) => event.id));
    const ats = [...first.body.items, ...second.body.items].map((event: { at: string }) => event.at);
    expect([...ats].sort().reverse()).toEqual(ats);
  });

  it('exports NDJSON oldest first, with a cursor that continues after the last line, also at the end', async () => {
    const all = (await allEvents(owner)).reverse();
    const first = await exportOf(admin(owner), { format: 'ndjson', limit: '3' });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/x-ndjson');
    // Never rendered or sniffed as a page, as every JSON answer.
    expect(first.headers['x-content-type-options']).toBe('nosniff');
    expect(first.headers['content-security-policy']).toBe("default-src 'none'");
    expect(first.lines.map((event) => event.id)).toEqual(all.slice(0, 3).map((event) => event.id));
    const cursor = first.headers[NEXT_CURSOR_HEADER.toLowerCase()];
    expect(cursor).toEqual(expect.any(String));
    // Sealed: it shows neither the tenant nor the event it continues after, in any encoding.
    const decoded = Buffer.from(cursor!.replace(/^[^.]*\./, ''), 'base64url').toString('latin1');
    for (const text of [cursor!, decoded]) {
      expect(text).not.toContain(owner.tenant.id);
      expect(text).not.toContain(all[2]!.id);
    }
    const rest = await exportOf({ ...admin(owner), Accept: 'application/x-ndjson' }, { cursor: cursor! });
    expect(rest.lines.map((event) => event.id)).toEqual(all.slice(3).map((event) => event.id));
    const atEnd = rest.headers[NEXT_CURSOR_HEADER.toLowerCase()]!;
    const empty = await exportOf(admin(owner), { format: 'ndjson', cursor: atEnd });
    expect(empty.lines).toEqual([]);
    expect(empty.headers[NEXT_CURSOR_HEADER.toLowerCase()]).toEqual(expect.any(String));
    // A change after the end: the kept cursor gives it, and only it.
    await revoke(keyIds[1]!, admin(owner));
    const later = await exportOf(admin(owner), { format: 'ndjson', cursor: atEnd });
    expect(later.lines.map((event) => [event.type, event.target.id])).toEqual([
      ['api_key.revoked', keyIds[1]],
    ]);
  });

  it('400 for a malformed time, an unknown type, a range that ends before it starts, an actor e-mail without @, or an unknown parameter', async () => {
    for (const [query, path] of [
      [{ from: 'yesterday' }, 'from'],
      [{ type: ['api_key.created', 'api_key.eaten'] }, 'type[1]'],
      [{ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'to'],
      [{ format: 'csv' }, 'format'],
      [{ actorEmail: 'not an e-mail' }, 'actorEmail'],
      [{ sort: 'at' }, 'sort'],
    ] as const) {
      const result = await list(admin(owner), query as Record<string, string | string[]>);
      expect(result.status, JSON.stringify(query)).toBe(400);
      expect(
        result.body.errors.map((error: { path: string }) => error.path),
        JSON.stringify(query),
      ).toContain(path);
    }
  });
});

describe('GET /audit-events: security', () => {
  it('403 for an EDITOR and a VIEWER', async () => {
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      const result = await list(bearer(tenant.users[role].token));
      expect(result.status, role).toBe(403);
    }
  });

  it("another tenant sees none of the tenant's events, by any filter", async () => {
    const created = await call(createKeyHandler, {
      method: 'POST',
      path: '/api/api-keys',
      headers: admin(tenant),
      body: { name: 'mine' },
    });
    expect((await allEvents(tenant, { targetId: created.body.id })).length).toBe(1);
    expect(await allEvents(other, { targetId: created.body.id })).toEqual([]);
    expect(await allEvents(other, { actorId: tenant.users.ADMIN.id })).toEqual([]);
    const exported = await exportOf(admin(other), { format: 'ndjson', limit: '1000' });
    expect(JSON.stringify(exported.lines)).not.toContain(tenant.tenant.id);
    expect(JSON.stringify(exported.lines)).not.toContain(created.body.id);
  });

  it("400 for a forged cursor, another tenant's cursor and a cursor of another list", async () => {
    for (const name of ['theirs 1', 'theirs 2']) {
      await call(createKeyHandler, {
        method: 'POST',
        path: '/api/api-keys',
        headers: admin(other),
        body: { name },
      });
    }
    const page = await list(admin(tenant), { limit: '1' });
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const forged = Buffer.from(JSON.stringify({ pk: `AUDIT#${other.tenant.id}`, sk: 'EVENT#' })).toString(
      'base64url',
    );
    const theirs = (await list(admin(other), { limit: '1' })).body.nextCursor;
    const exported = await exportOf(admin(other), { format: 'ndjson', limit: '1' });
    for (const cursor of [
      forged,
      `${page.body.nextCursor}x`,
      theirs,
      exported.headers[NEXT_CURSOR_HEADER.toLowerCase()],
    ]) {
      const result = await list(admin(tenant), { cursor });
      expect(result.status, cursor).toBe(400);
      expect(result.body.errors).toEqual([{ path: 'cursor', message: 'Invalid cursor' }]);
    }
  });
});

describeJwtAuth('GET /audit-events', (headers) => invoke(handler, { path: '/api/audit-events', headers }), {
  roles: ['ADMIN'],
});

/**
 * No change without its record: with a fault injected on every write that holds an audit event, each
 * audited change fails, and what it would have changed is as it was.
 */
describe('audit events: a change is stored with its event or not at all', () => {
  const onEventWrite = () =>
    injectFaults(db, (_operation, input) =>
      JSON.stringify(input).includes('"AUDIT#') ? throttling() : undefined,
    );

  const failsWithout = async (act: () => Promise<InvokeResult | unknown>) => {
    const remove = onEventWrite();
    try {
      const result = await act().catch((error: unknown) => error);
      if (result && typeof result === 'object' && 'status' in result) {
        expect((result as InvokeResult).status, JSON.stringify((result as InvokeResult).body)).toBe(503);
      } else {
        expect(result).toBeInstanceOf(Error);
      }
    } finally {
      remove();
    }
  };

  it('keys: create, update, roll, revoke and a leak report change nothing without their events', async () => {
    const owner = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
    const before = (await list(admin(owner))).body.items.length;
    await failsWithout(() =>
      call(createKeyHandler, {
        method: 'POST',
        path: '/api/api-keys',
        headers: admin(owner),
        body: { name: 'x' },
      }),
    );
    const key = await createApiKey(db, { tenantId: owner.tenant.id, name: 'k' });
    await failsWithout(() =>
      patchKey(key.id, admin(owner), { name: 'renamed', allowedSources: ['192.0.2.1'] }),
    );
    await failsWithout(() => roll(key.id, admin(owner), { gracePeriodHours: 1 }));
    await failsWithout(() => revoke(key.id, admin(owner)));
    await failsWithout(() =>
      revokeLeakedKeys(db, publish, [
        { token: key.key, type: 't', url: 'https://github.com/o/r/blob/s/f', source: 'content' },
      ]),
    );
    const stored = await getApiKeyByHash(db, hashApiKey(key.key));
    expect(stored).toMatchObject({ name: 'k', allowedSources: null, revokedAt: null, replacedBy: null });
    const { Items } = await db.client
      .send(new GetCommand({ TableName: db.tableName, Key: keys.apiKey(hashApiKey(key.key)) }))
      .then((result) => ({ Items: [result.Item] }));
    expect(Items[0]?.revokedAt ?? null).toBeNull();
    // Only the key made without a fault, and its event.
    expect((await allEvents(owner)).map((event) => event.type)).toEqual(['api_key.created']);
    expect(before).toBe(0);
  });

  it('a KPI update, a webhook endpoint created, deleted or disabled, and a logout change nothing without their events', async () => {
    const owner = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const kpi = owner.kpis[0]!;
    await failsWithout(() => patchKpi(kpi.id, admin(owner), { tolerance: 0.09 }));
    const { Item: kpiItem } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.kpi(kpi.id) }),
    );
    expect(kpiItem?.tolerance).toBe(kpi.tolerance);
    await failsWithout(() =>
      call(createWebhookHandler, {
        method: 'POST',
        path: '/api/webhooks',
        headers: admin(owner),
        body: { url: 'https://hooks.example.com/a', eventTypes: ['kpi.quiet'] },
      }),
    );
    expect(await listEndpoints(db, owner.tenant.id)).toEqual([]);
    const created = await call(createWebhookHandler, {
      method: 'POST',
      path: '/api/webhooks',
      headers: admin(owner),
      body: { url: 'https://hooks.example.com/b', eventTypes: ['kpi.quiet'] },
    });
    await failsWithout(() => deleteWebhook(created.body.id, admin(owner)));
    await failsWithout(() =>
      putEndpointDisabled(
        db,
        owner.tenant.id,
        created.body.id,
        new Date().toISOString(),
        'failing',
        auditEvent(systemContext('webhook-delivery'), {
          type: 'webhook.disabled',
          tenantId: owner.tenant.id,
          target: { type: 'webhook', id: created.body.id },
        }),
      ),
    );
    expect(await listEndpoints(db, owner.tenant.id)).toMatchObject([
      { id: created.body.id, status: 'active' },
    ]);
    const me = owner.users.EDITOR;
    await failsWithout(() =>
      call(logoutHandler, {
        method: 'POST',
        path: '/api/auth/logout',
        body: { refreshToken: me.refreshToken },
      }),
    );
    await failsWithout(() =>
      call(logoutHandler, {
        method: 'POST',
        path: '/api/auth/logout',
        body: { refreshToken: me.refreshToken, everywhere: true },
      }),
    );
    expect((await getUser(db, owner.tenant.id, me.id))?.tokenVersion).toBe(me.tokenVersion);
    // The session still works: the refresh token was not ended.
    expect(
      (
        await call(logoutHandler, {
          method: 'POST',
          path: '/api/auth/logout',
          body: { refreshToken: me.refreshToken },
        })
      ).status,
    ).toBe(204);
  });

  it('a pull integration created, updated, deleted or disabled changes nothing without its event', async () => {
    const owner = await createTestTenant({ plan: 'enterprise', features: [...PULL], kpiTypes: ['BSC_KPI'] });
    await failsWithout(() =>
      call(createPullHandler, {
        method: 'POST',
        path: '/api/integrations/pull',
        headers: admin(owner),
        body: pullDefinition(owner),
      }),
    );
    // The operator made the tenant's KPI (its `kpi.created`): the integration's events are what count.
    const integrationEvents = async () =>
      (await allEvents(owner)).filter((event) => event.target.type === 'integration');
    expect(await integrationEvents()).toEqual([]);
    const pull = await call(createPullHandler, {
      method: 'POST',
      path: '/api/integrations/pull',
      headers: admin(owner),
      body: pullDefinition(owner, '/down'),
    });
    await failsWithout(() => patchPull(pull.body.id, admin(owner), { name: 'renamed' }));
    await failsWithout(() => deletePull(pull.body.id, admin(owner)));
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.pullIntegration(owner.tenant.id, pull.body.id),
        UpdateExpression: 'SET #status = :failing, consecutiveFailures = :n, failingSince = :since',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':failing': 'failing',
          ':n': 5,
          ':since': new Date(Date.now() - 2 * 86_400_000).toISOString(),
        },
      }),
    );
    await failsWithout(() => runPull(pull.body.id, admin(owner)));
    expect(await getIntegration(db, owner.tenant.id, pull.body.id)).toMatchObject({
      name: 'Billing MRR',
      status: 'failing',
    });
    expect((await integrationEvents()).map((event) => event.type)).toEqual(['integration.created']);
  });
});

describe('audit events: what each audited change writes', () => {
  it('costs the write units of its transaction, as DynamoDB reports them: key, KPI, webhook and pull changes', async () => {
    const owner = await createTestTenant({ plan: 'enterprise', features: [...PULL], kpiTypes: ['BSC_KPI'] });
    const units = async (act: (database: typeof db) => Promise<unknown>) => {
      const probe = instrument(db);
      await act(probe.db);
      return probe.capacity().write;
    };
    const key = await createApiKey(db, { tenantId: owner.tenant.id, name: 'k' });
    const measured = {
      createKey: await units((database) => createApiKey(database, { tenantId: owner.tenant.id, name: 'x' })),
      rollKey: await units((database) =>
        rollApiKey(database, { tenantId: owner.tenant.id, keyId: key.id, gracePeriodHours: 1 }, publish),
      ),
      revokeKey: await units((database) =>
        revokeApiKey(database, owner.tenant.id, key.id, undefined, publish),
      ),
      updateKpi: await units((database) =>
        updateKpi(database, owner.tenant.id, owner.kpis[0]!.id, { tolerance: 0.2 }),
      ),
      createWebhook: await units((database) =>
        createEndpoint(
          { ...webhookDeps, db: database },
          {
            tenantId: owner.tenant.id,
            url: 'https://hooks.example.com/u',
            eventTypes: ['kpi.quiet'],
            createdBy: null,
          },
        ),
      ),
    };
    const [endpoint] = await listEndpoints(db, owner.tenant.id);
    const pull = await createIntegration(pullDeps, {
      ...(pullDefinition(owner) as any),
      tenantId: owner.tenant.id,
      createdBy: null,
    });
    Object.assign(measured, {
      deleteWebhook: await units((database) => deleteEndpoint(database, owner.tenant.id, endpoint!.id)),
      createPull: await units((database) =>
        createIntegration(
          { ...pullDeps, db: database },
          { ...(pullDefinition(owner) as any), tenantId: owner.tenant.id, createdBy: null },
        ),
      ),
      updatePull: await units((database) =>
        updateIntegration({ ...pullDeps, db: database }, owner.tenant.id, pull.id, { name: 'n' }),
      ),
      deletePull: await units((database) =>
        removeIntegration({ ...pullDeps, db: database }, owner.tenant.id, pull.id),
      ),
    });
    // DynamoDB Local's ConsumedCapacity: each item of a transaction at 2 units per KB; the event is one
    // item of under 1 KB. The webhook transactions report 2 there (as the test shows), whatever their items.
    expect(measured).toEqual({
      createKey: 6,
      rollKey: 6,
      revokeKey: 6,
      updateKpi: 6,
      createWebhook: 2,
      deleteWebhook: 2,
      createPull: 6,
      updatePull: 6,
      deletePull: 6,
    });
  });
});
