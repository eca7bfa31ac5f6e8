import { describe, expect, it } from 'vitest';
import gatewayResponses from '../../infra/gateway-responses.json';
import { generateApiKey } from '../../lib/api-keys/key-format';
import { createApiKey } from '../../lib/api-keys/service';
import { createKpi } from '../../lib/db/kpis';
import { createStackTenant, loginAs, request, seed, stackDatabase } from '../support/http';

/** curl-equivalent pushes through serverless-offline, with the seeded keys. */
describe('push over HTTP (serverless-offline)', () => {
  const acme = () => seed().tenants[0]!;
  const activeKey = () => acme().apiKeys.find((key) => key.status === 'active')!.key;
  const adminLogin = () => {
    const admin = acme().users.find((user) => user.role === 'ADMIN')!;
    return [admin.email, admin.password] as const;
  };

  it('single push: 201, then 200 for the same period; GET /kpis/{id}/measurements shows it', async () => {
    const kpi = acme().kpis[0]!;
    const body = {
      kpiId: kpi.id,
      kpiType: kpi.type,
      actual: 17,
      periodStart: '2026-10-01',
      periodEnd: '2026-10-31',
    };
    const created = await request('POST', '/integrations/push/measurement', {
      headers: { 'x-api-key': activeKey() },
      body,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('ratelimit-limit')).toBe('300');
    const replaced = await request('POST', '/integrations/push/measurement', {
      headers: { 'x-api-key': activeKey() },
      body: { ...body, actual: 18 },
    });
    expect(replaced.status).toBe(200);

    const admin = acme().users.find((user) => user.role === 'ADMIN')!;
    const { token } = await loginAs(admin.email, admin.password);
    const listed = await request('GET', `/kpis/${kpi.id}/measurements`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(listed.body.items).toEqual([expect.objectContaining({ actual: 18, periodStart: '2026-10-01' })]);
  });

  it('batch push of every KPI type: 200 with per-item status', async () => {
    const measurements = acme().kpis.map((kpi, i) => ({
      kpiId: kpi.id,
      kpiType: kpi.type,
      actual: i,
      target: 10,
    }));
    const result = await request('POST', '/integrations/push/measurements/batch', {
      headers: { 'x-api-key': activeKey() },
      body: { measurements },
    });
    expect(result.status).toBe(200);
    expect(result.body.count).toBe(measurements.length);
    expect(result.body.items.map((item: { index: number }) => item.index)).toEqual(
      measurements.map((_, i) => i),
    );
  });

  it('the seeded revoked and expired keys, the push-less and the inactive tenant: 403; no key: 401', async () => {
    const [acmeTenant, , noPush, inactive] = seed().tenants;
    const push = (key: string | undefined, kpi: { id: string; type: string }) =>
      request('POST', '/integrations/push/measurement', {
        headers: key ? { 'x-api-key': key } : {},
        body: { kpiId: kpi.id, kpiType: kpi.type, actual: 1 },
      });
    const kpi = acmeTenant!.kpis[0]!;
    expect((await push(acmeTenant!.apiKeys[1]!.key, kpi)).body.type).toMatch(/api-key-revoked$/);
    expect((await push(acmeTenant!.apiKeys[2]!.key, kpi)).body.type).toMatch(/api-key-expired$/);
    expect((await push(noPush!.apiKeys[0]!.key, noPush!.kpis[0]!)).body.type).toMatch(/feature-not-enabled$/);
    expect((await push(inactive!.apiKeys[0]!.key, inactive!.kpis[0]!)).body.type).toMatch(/tenant-inactive$/);
    expect((await push(undefined, kpi)).status).toBe(401);
  });

  it('the authorizer refuses an unknown or missing key before any push Lambda runs: 401 problem+json', async () => {
    const kpi = acme().kpis[0]!;
    const unauthorized = gatewayResponses.GatewayResponseUnauthorized.Properties;
    const edgeDetail = JSON.parse(
      unauthorized.ResponseTemplates['application/json'].replace('$context.requestId', 'x'),
    ).detail;
    for (const headers of [{ 'x-api-key': generateApiKey() }, {}] as Record<string, string>[]) {
      const refused = await request('POST', '/integrations/push/measurement', {
        headers,
        body: { kpiId: kpi.id, kpiType: kpi.type, actual: 1 },
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(refused.headers.get('www-authenticate')).toBe('ApiKey header="x-api-key"');
      expect(refused.body).toMatchObject({ type: expect.stringMatching(/\/invalid-api-key$/), status: 401 });
      // The gateway response's own text: the authorizer answered, not the handler.
      expect(refused.body.detail).toBe(edgeDetail);
    }
  });

  it('dry run over HTTP: 200 with what would happen, the same 403 as a push, nothing stored', async () => {
    // A tenant of its own: the seeded tenants' measurements are the KPI page's demo data.
    const db = stackDatabase();
    const { tenant, email, password } = await createStackTenant('business');
    const kpi = await createKpi(db, tenant.id, { type: 'BSC_KPI', name: 'Revenue' });
    const headers = { 'x-api-key': (await createApiKey(db, { tenantId: tenant.id, name: 'dry run' })).key };
    const { token } = await loginAs(email, password);
    const stored = async () =>
      (
        await request('GET', `/kpis/${kpi.id}/measurements`, {
          headers: { Authorization: `Bearer ${token}` },
        })
      ).body.items;
    const march = {
      kpiId: kpi.id,
      kpiType: kpi.type,
      actual: 5,
      periodStart: '2026-03-01',
      periodEnd: '2026-03-31',
    };
    const real = await request('POST', '/integrations/push/measurement', { headers, body: march });
    expect(real.status).toBe(201);
    const before = await stored();
    expect(before).toHaveLength(1);

    const april = { ...march, periodStart: '2026-04-01', periodEnd: '2026-04-30' };
    const planned = await request('POST', '/integrations/push/measurement?dryRun=true', {
      headers,
      body: april,
    });
    expect(planned.status).toBe(200);
    expect(planned.headers.get('ratelimit-limit')).toBe('300');
    expect(planned.body).toMatchObject({
      dryRun: true,
      status: 'created',
      measurement: { id: null, actual: 5 },
    });
    const batch = await request('POST', '/integrations/push/measurements/batch?dryRun=true', {
      headers,
      body: { measurements: [{ ...march, actual: 6 }, april] },
    });
    expect(batch.status).toBe(200);
    expect(batch.body).toMatchObject({
      dryRun: true,
      count: 2,
      items: [
        { index: 0, status: 'updated', measurement: { id: real.body.id, actual: 6 } },
        { index: 1, status: 'created', measurement: { id: null } },
      ],
    });
    // A scoped key (the seed's, limited to the revenue KPI) is refused like a real push.
    const scopedKey = acme().apiKeys[3]!.key;
    const other = acme().kpis[1]!;
    const outside = await request('POST', '/integrations/push/measurement?dryRun=true', {
      headers: { 'x-api-key': scopedKey },
      body: { kpiId: other.id, kpiType: other.type, actual: 1 },
    });
    expect(outside.status).toBe(403);
    expect(outside.body).toMatchObject({
      type: expect.stringMatching(/\/kpi-outside-key-scope$/),
      outOfScopeKpiIds: [other.id],
    });
    const bad = await request('POST', '/integrations/push/measurement?dryRun=yes', { headers, body: april });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ path: 'dryRun' })]);

    expect(await stored()).toEqual(before);
  });

  it('key check over HTTP: the key, its organization and budget; a plan without push is 200; refusals as a push', async () => {
    const [acmeTenant, , noPush] = seed().tenants;
    const check = (key?: string) =>
      request('GET', '/integrations/push/key', { headers: key ? { 'x-api-key': key } : {} });
    const ok = await check(activeKey());
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      key: { id: acmeTenant!.apiKeys[0]!.id, status: 'active' },
      organization: { id: acmeTenant!.id, plan: 'business', pushEnabled: true },
      rateLimit: { limit: 300, windowSeconds: 60 },
    });
    expect(ok.headers.get('ratelimit-remaining')).toBe(String(ok.body.rateLimit.remaining));
    const pushless = await check(noPush!.apiKeys[0]!.key);
    expect(pushless.status).toBe(200);
    expect(pushless.body.organization.pushEnabled).toBe(false);
    expect((await check(acmeTenant!.apiKeys[1]!.key)).body.type).toMatch(/api-key-revoked$/);
    expect((await check()).status).toBe(401);
  });

  it('KPI reads over HTTP: ?type=, ?include=activity and one KPI with its measurements', async () => {
    const { token } = await loginAs(...adminLogin());
    const auth = { Authorization: `Bearer ${token}` };
    const kpi = acme().kpis[0]!;
    const ofType = await request('GET', `/kpis?type=${kpi.type}`, { headers: auth });
    expect(ofType.status).toBe(200);
    expect(ofType.body.items.map((k: { id: string }) => k.id)).toContain(kpi.id);
    expect(new Set(ofType.body.items.map((k: { type: string }) => k.type))).toEqual(new Set([kpi.type]));
    const withActivity = await request('GET', '/kpis?include=activity', { headers: auth });
    expect(withActivity.status).toBe(200);
    for (const item of withActivity.body.items) {
      expect(item.activity).toEqual(expect.objectContaining({ recent: expect.any(Array) }));
      expect(item).toEqual(expect.objectContaining({ quiet: expect.any(Boolean) }));
    }
    const detail = await request('GET', `/kpis/${kpi.id}?limit=1`, { headers: auth });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: kpi.id, type: kpi.type });
    expect(detail.body.measurements).toHaveLength(1);
    expect(detail.body.measurements[0]).toEqual(
      expect.objectContaining({
        receivedAt: expect.any(String),
        apiKeyPrefix: expect.stringMatching(/^skm_/),
      }),
    );
    expect(detail.body.nextCursor).toEqual(expect.any(String));
    // An id that is no UUID names nothing: 400 naming the parameter, before any read.
    expect((await request('GET', '/kpis/not-a-uuid', { headers: auth })).status).toBe(400);
  });
});
