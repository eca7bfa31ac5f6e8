import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../../functions/get-api-key-usage';
import { handler as listHandler } from '../../../functions/list-api-keys';
import { handler as pushHandler } from '../../../functions/push-measurement';
import { hashApiKey } from '../../../lib/api-keys/key-format';
import { createApiKey, revokeApiKey } from '../../../lib/api-keys/service';
import { getApiKeyByHash } from '../../../lib/db/api-keys';
import { invoke } from '../../support/events';
import { bearer, createRawKey, createTestTenant, db, publish, type TestTenant } from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { measurementFor, pushOne } from '../../support/push';

const usage = (id: string, headers: Record<string, string>, query?: Record<string, string>) =>
  invoke(handler, { path: `/api/api-keys/${id}/usage`, pathParameters: { id }, headers, query });

const today = () => new Date().toISOString().slice(0, 10);
const idOf = async (key: string) => (await getApiKeyByHash(db, hashApiKey(key)))!.id;
const day = (body: { days: { date: string }[] }, date = today()): any =>
  body.days.find((row) => row.date === date);
const NO_REFUSALS = { authentication: 0, source: 0, scope: 0, rateLimit: 0, validation: 0, featureOff: 0 };

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  // Daily KPIs: the tests push one day each.
  [tenant, other] = await Promise.all([
    createTestTenant({ period: 'day' }),
    createTestTenant({ period: 'day' }),
  ]);
});

describe('GET /api-keys/{id}/usage: happy path', () => {
  it('100 concurrent pushes with one key: exactly 100 requests, 100 accepted, 100 measurements today', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const kpi = tenant.kpis[0]!;
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        pushOne(
          key,
          measurementFor(kpi, {
            periodStart: new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10),
            periodEnd: new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10),
          }),
          { 'User-Agent': 'nightly-cron/1.2' },
        ),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(Array(100).fill(201));
    const result = await usage(await idOf(key), bearer(tenant.users.ADMIN.token), {
      from: today(),
      to: today(),
    });
    expect(result.status).toBe(200);
    expect(result.body.days).toHaveLength(1);
    expect(day(result.body)).toMatchObject({
      date: today(),
      requests: 100,
      accepted: 100,
      measurements: 100,
      refused: NO_REFUSALS,
      lastSourceIp: '127.0.0.1',
      lastUserAgent: 'nightly-cron/1.2',
    });
    expect(day(result.body)!.firstRequestAt! <= day(result.body)!.lastRequestAt!).toBe(true);
    expect(result.body.totals).toMatchObject({ requests: 100, accepted: 100, measurements: 100 });
    // The key list shows the same day in its last 30, and where the key was last used from.
    const listed = await invoke(listHandler, {
      path: '/api/api-keys',
      headers: bearer(tenant.users.ADMIN.token),
    });
    const item = listed.body.items.find((k: { id: string }) => k.id === result.body.keyId);
    expect(item.usage).toMatchObject({
      requests: 100,
      accepted: 100,
      refused: 0,
      lastSourceIp: '127.0.0.1',
      lastUserAgent: 'nightly-cron/1.2',
    });
    expect(item.usage.days.at(-1)).toEqual({ date: today(), requests: 100, refused: 0 });
    expect(item.lastUsedAt).toBe(day(result.body).lastUsedAt);
  });

  it('counts refusals of a known key by reason; a dry run is a request but not an acceptance', async () => {
    const limited = await createTestTenant({ plan: 'free', kpiTypes: ['BSC_KPI'], period: 'day' });
    const off = await createTestTenant({ features: [], kpiTypes: ['BSC_KPI'] });
    const key = await createRawKey(tenant.tenant.id);
    const scoped = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'scoped',
      kpiIds: [tenant.kpis[0]!.id],
    });
    const revoked = await createRawKey(tenant.tenant.id);
    const rateKey = await createRawKey(limited.tenant.id);
    const offKey = await createRawKey(off.tenant.id);
    const kpi = tenant.kpis[0]!;
    const statuses = [
      // validation: an invalid body, and a KPI that is not the organization's.
      (await pushOne(key, { ...measurementFor(kpi), actual: 'many' })).status,
      (await pushOne(key, measurementFor(other.kpis[0]!))).status,
      (await pushOne(key, measurementFor(kpi))).status,
      (
        await invoke(pushHandler, {
          method: 'POST',
          path: '/api/integrations/push/measurement',
          headers: { 'x-api-key': key },
          query: { dryRun: 'true' },
          body: measurementFor(kpi),
        })
      ).status,
      // scope: a KPI outside the key's scope.
      (await pushOne(scoped.key, measurementFor(tenant.kpis[1]!))).status,
      // featureOff: a plan without push.
      (await pushOne(offKey, measurementFor(off.kpis[0]!))).status,
    ];
    expect(statuses.slice(0, 4)).toEqual([400, 404, 201, 200]);
    expect(statuses[4]).toBe(403);
    expect(statuses[5]).toBe(403);
    // authentication: a revoked key, sent to the function as a direct invocation (without the authorizer).
    await revokeApiKey(db, tenant.tenant.id, await idOf(revoked), undefined, publish);
    for (let i = 0; i < 2; i++) {
      const refused = await invoke(pushHandler, {
        method: 'POST',
        path: '/api/integrations/push/measurement',
        headers: { 'x-api-key': revoked },
        body: measurementFor(kpi),
      });
      expect(refused.status).toBe(403);
    }
    // rateLimit: the free plan's 60 requests a minute, then 2 more.
    const burst = await Promise.all(
      Array.from({ length: 62 }, (_, i) =>
        pushOne(
          rateKey,
          measurementFor(limited.kpis[0]!, {
            periodStart: `2024-01-${String((i % 28) + 1).padStart(2, '0')}`,
            periodEnd: `2024-01-${String((i % 28) + 1).padStart(2, '0')}`,
          }),
        ),
      ),
    );
    const limitedCount = burst.filter((result) => result.status === 429).length;
    expect(limitedCount).toBeGreaterThanOrEqual(2);

    const read = async (raw: string, owner: TestTenant) =>
      day((await usage(await idOf(raw), bearer(owner.users.VIEWER.token))).body)!;
    expect(await read(key, tenant)).toMatchObject({
      requests: 4,
      accepted: 1,
      measurements: 1,
      refused: { ...NO_REFUSALS, validation: 2 },
    });
    expect((await read(scoped.key, tenant)).refused).toEqual({ ...NO_REFUSALS, scope: 1 });
    expect((await read(offKey, off)).refused).toEqual({ ...NO_REFUSALS, featureOff: 1 });
    expect(await read(revoked, tenant)).toMatchObject({
      requests: 0,
      refused: { ...NO_REFUSALS, authentication: 2 },
    });
    expect(await read(rateKey, limited)).toMatchObject({
      requests: 62,
      refused: { ...NO_REFUSALS, rateLimit: limitedCount },
    });
  });

  it('defaults to the last 30 days, today last, every day present', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const result = await usage(await idOf(key), bearer(tenant.users.EDITOR.token));
    expect(result.status).toBe(200);
    expect(result.body.days).toHaveLength(30);
    expect(result.body.to).toBe(today());
    expect(result.body.days.at(-1).date).toBe(today());
    expect(result.body.days[0]).toEqual({
      date: result.body.from,
      requests: 0,
      accepted: 0,
      measurements: 0,
      refused: NO_REFUSALS,
      firstRequestAt: null,
      lastRequestAt: null,
      lastUsedAt: null,
      lastSourceIp: null,
      lastUserAgent: null,
      lastRefusedSourceIp: null,
    });
  });
});

describe('GET /api-keys/{id}/usage and GET /api-keys: where a key was used from, for ADMINs only', () => {
  // A tenant of its own: the others' keys use up the plan's key maximum.
  let own: TestTenant;
  let keyId: string;
  beforeAll(async () => {
    own = await createTestTenant();
    const key = await createRawKey(own.tenant.id);
    expect(
      (await pushOne(key, measurementFor(own.kpis[0]!), { 'User-Agent': 'billing-sync/3.0' })).status,
    ).toBe(201);
    keyId = await idOf(key);
  });
  const read = async (role: 'ADMIN' | 'EDITOR' | 'VIEWER') => {
    const headers = bearer(own.users[role].token);
    const detail = await usage(keyId, headers, { from: today(), to: today() });
    const listed = await invoke(listHandler, { path: '/api/api-keys', headers });
    expect([detail.status, listed.status], role).toEqual([200, 200]);
    const item = listed.body.items.find((k: { id: string }) => k.id === keyId);
    return { day: day(detail.body), totals: detail.body.totals, recent: item.usage };
  };
  const SOURCE = { lastSourceIp: '127.0.0.1', lastUserAgent: 'billing-sync/3.0' };

  it('ADMIN sees the address and User-Agent of the last request, per day, in the totals and in the list', async () => {
    const seen = await read('ADMIN');
    expect(seen.day).toMatchObject({ requests: 1, accepted: 1, ...SOURCE });
    expect(seen.totals).toMatchObject({ requests: 1, ...SOURCE });
    expect(seen.recent).toMatchObject({ requests: 1, ...SOURCE });
  });

  it('EDITOR and VIEWER see the rest of the usage, with no address or User-Agent anywhere in it', async () => {
    const admin = await read('ADMIN');
    const hidden = (part: Record<string, unknown>) => ({ ...part, lastSourceIp: null, lastUserAgent: null });
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      const seen = await read(role);
      expect(seen.day, role).toEqual(hidden(admin.day));
      expect(seen.totals, role).toEqual(hidden(admin.totals));
      expect(seen.recent, role).toEqual(hidden(admin.recent));
      expect(JSON.stringify(seen), role).not.toMatch(/billing-sync|127\.0\.0\.1/);
    }
  });
});

describe('GET /api-keys/{id}/usage: a request refused for its source', () => {
  it('is counted as `source`; ADMIN sees the refused address per day and in the totals, the other roles null', async () => {
    const own = await createTestTenant();
    const created = await createApiKey(db, {
      tenantId: own.tenant.id,
      name: 'cron host',
      allowedSources: ['203.0.113.7/32'],
    });
    expect((await pushOne(created.key, measurementFor(own.kpis[0]!), {}, '203.0.113.7')).status).toBe(201);
    const refused = await pushOne(created.key, measurementFor(own.kpis[0]!), {}, '198.51.100.99');
    expect(refused.status).toBe(403);
    const seen = async (role: 'ADMIN' | 'VIEWER') => {
      const { body } = await usage(created.id, bearer(own.users[role].token), { from: today(), to: today() });
      return { day: day(body), totals: body.totals };
    };
    const admin = await seen('ADMIN');
    for (const part of [admin.day, admin.totals]) {
      expect(part).toMatchObject({
        refused: { ...NO_REFUSALS, source: 1 },
        lastRefusedSourceIp: '198.51.100.99',
        accepted: 1,
      });
    }
    const viewer = await seen('VIEWER');
    expect(viewer.day).toMatchObject({
      refused: { source: 1 },
      lastRefusedSourceIp: null,
      lastSourceIp: null,
    });
    expect(viewer.totals.lastRefusedSourceIp).toBeNull();
  });
});

describe('GET /api-keys/{id}/usage: errors', () => {
  it('404 for another tenant’s key and for an unknown one, with the same answer', async () => {
    const theirs = await idOf(await createRawKey(other.tenant.id));
    const foreign = await usage(theirs, bearer(tenant.users.ADMIN.token));
    const unknown = await usage(randomUUID(), bearer(tenant.users.ADMIN.token));
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.type).toBe(unknown.body.type);
  });

  it('400 naming the parameter: more than 90 days, from after to, not a date, an unknown parameter, an id that is no UUID', async () => {
    const id = await idOf(await createRawKey(tenant.tenant.id));
    const cases: [string, Record<string, string>, string][] = [
      [id, { from: '2026-01-01', to: '2026-04-01' }, 'from'],
      [id, { from: '2026-02-02', to: '2026-02-01' }, 'from'],
      [id, { from: '2026-02-30' }, 'from'],
      [id, { to: 'yesterday' }, 'to'],
      [id, { since: '2026-01-01' }, 'since'],
      ['not-a-uuid', {}, 'id'],
    ];
    for (const [keyId, query, name] of cases) {
      const result = await usage(keyId, bearer(tenant.users.ADMIN.token), query);
      expect(result.status, JSON.stringify(query)).toBe(400);
      expect(result.headers['content-type']).toBe('application/problem+json');
      expect(JSON.stringify(result.body.errors ?? result.body.detail)).toContain(name);
    }
    // 90 days exactly is allowed.
    expect(
      (await usage(id, bearer(tenant.users.ADMIN.token), { from: '2026-01-01', to: '2026-03-31' })).status,
    ).toBe(200);
  });
});

describeJwtAuth('GET /api-keys/{id}/usage', async (headers, owner) => {
  const id = await idOf(await createRawKey(owner.tenant.id));
  return usage(id, headers);
});
