import { beforeAll, describe, expect, it } from 'vitest';
import { createKpi } from '../../lib/db/kpis';
import type { Kpi } from '../../lib/domain/kpi';
import { createStackTenant, loginAs, request, stackDatabase } from '../support/http';

/**
 * A key limited to some source addresses, through the local stack over HTTP: serverless-offline runs
 * the push authorizer, which sees the caller's address as API Gateway's does
 * (scripts/serverless-offline-source-ip.cjs). On Linux 127.0.0.2 and 127.0.0.3 are two clients of
 * this machine (`request(…, { from })`).
 */
const ALLOWED = '127.0.0.2';
const OTHER = '127.0.0.3';

let admin: Record<string, string>;
let kpi: Kpi;
beforeAll(async () => {
  const { tenant, email, password } = await createStackTenant('business');
  kpi = await createKpi(stackDatabase(), tenant.id, { type: 'BSC_KPI', name: 'Nightly revenue' });
  admin = { Authorization: `Bearer ${(await loginAs(email, password)).token}` };
});

const push = (key: string, from: string, actual = 1) =>
  request('POST', '/integrations/push/measurement', {
    headers: { 'x-api-key': key },
    body: { kpiId: kpi.id, kpiType: kpi.type, actual, periodStart: '2026-03-01', periodEnd: '2026-03-31' },
    from,
  });
const check = (key: string, from: string) =>
  request('GET', '/integrations/push/key', { headers: { 'x-api-key': key }, from });

describe('a key limited to 127.0.0.2/32, over HTTP through the local stack', () => {
  let key: string;
  let id: string;
  beforeAll(async () => {
    const created = await request('POST', '/api-keys', {
      headers: admin,
      body: { name: 'Cron host', allowedSources: [ALLOWED] },
    });
    expect(created.status).toBe(201);
    expect(created.body.allowedSources).toEqual(['127.0.0.2/32']);
    ({ key, id } = created.body);
  });

  it('pushes from 127.0.0.2', async () => {
    const pushed = await push(key, ALLOWED);
    expect(pushed.status).toBe(201);
    const checked = await check(key, ALLOWED);
    expect(checked.status).toBe(200);
    expect(checked.body.source).toEqual({ ip: ALLOWED, allowed: true });
    expect(checked.body.key.allowedSources).toEqual(['127.0.0.2/32']);
  });

  it('is refused from 127.0.0.3 at the edge: 403 source-not-allowed naming the address, no Lambda run', async () => {
    for (const refused of [await push(key, OTHER, 2), await check(key, OTHER)]) {
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(refused.body).toMatchObject({
        type: 'https://strategy-service.example.com/problems/source-not-allowed',
        status: 403,
        sourceIp: OTHER,
      });
      expect(refused.body.detail).toContain(OTHER);
      // The gateway's own answer (ACCESS_DENIED): a function's answer always carries X-Request-Id.
      expect(refused.headers.get('x-request-id')).toBeNull();
    }
  });

  it('counts the refusal as `source` in the key’s usage, with the refused address', async () => {
    const usage = await request('GET', `/api-keys/${id}/usage`, { headers: admin });
    expect(usage.status).toBe(200);
    // The push and the key check from 127.0.0.3: serverless-offline caches no authorizer answer.
    expect(usage.body.totals.refused).toMatchObject({ source: 2, authentication: 0 });
    expect(usage.body.totals.lastRefusedSourceIp).toBe(OTHER);
    expect(usage.body.totals.accepted).toBe(1);
    const listed = await request('GET', '/api-keys', { headers: admin });
    const item = listed.body.items.find((k: { id: string }) => k.id === id);
    expect(item.allowedSources).toEqual(['127.0.0.2/32']);
    expect(item.usage.refused).toBe(2);
  });

  it('PATCH lets 127.0.0.3 in, and null lets every address in again', async () => {
    const widened = await request('PATCH', `/api-keys/${id}`, {
      headers: admin,
      body: { allowedSources: [ALLOWED, `${OTHER}/32`] },
    });
    expect(widened.status).toBe(200);
    expect(widened.body.allowedSources).toEqual(['127.0.0.2/32', '127.0.0.3/32']);
    expect((await push(key, OTHER, 3)).status).toBe(200);
    const narrowed = await request('PATCH', `/api-keys/${id}`, {
      headers: admin,
      body: { allowedSources: ['127.0.0.0/31'] },
    });
    expect(narrowed.body.allowedSources).toEqual(['127.0.0.0/31']);
    expect((await push(key, OTHER, 4)).status).toBe(403);
    expect(
      (await request('PATCH', `/api-keys/${id}`, { headers: admin, body: { allowedSources: null } })).body,
    ).toMatchObject({ allowedSources: null });
    expect((await push(key, OTHER, 5)).status).toBe(200);
  });
});
