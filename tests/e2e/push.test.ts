import { describe, expect, it } from 'vitest';
import gatewayResponses from '../../infra/gateway-responses.json';
import { generateApiKey } from '../../lib/api-keys/key-format';
import { loginAs, request, seed } from '../support/http';

/** curl-equivalent pushes through serverless-offline, with the seeded keys. */
describe('push over HTTP (serverless-offline)', () => {
  const acme = () => seed().tenants[0]!;
  const activeKey = () => acme().apiKeys.find((key) => key.status === 'active')!.key;

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
});
