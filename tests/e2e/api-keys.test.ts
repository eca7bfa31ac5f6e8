import { describe, expect, it } from 'vitest';
import { loginAs, request, seed } from '../support/http';

describe('API keys over HTTP (serverless-offline)', () => {
  it('the seed has an active, a revoked, an expired, a scoped and a rolled key for Acme and an active key elsewhere', () => {
    const [acme, ...others] = seed().tenants;
    expect(acme!.apiKeys.map((key) => key.status)).toEqual([
      'active',
      'revoked',
      'expired',
      'active',
      'active',
      'active',
    ]);
    const [, , , scoped, rolled, replacement] = acme!.apiKeys;
    expect(scoped!.kpiIds).toEqual([acme!.kpis.find((kpi) => kpi.type === 'BSC_KPI')!.id]);
    expect(rolled!.replacedBy).toBe(replacement!.id);
    for (const tenant of others) expect(tenant.apiKeys.map((key) => key.status)).toEqual(['active']);
    for (const key of seed().tenants.flatMap((tenant) => tenant.apiKeys)) {
      expect(key.key.startsWith(key.prefix)).toBe(true);
    }
  });

  it('create, list, revoke; a VIEWER may list but not create', async () => {
    const acme = seed().tenants[0]!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const viewer = acme.users.find((user) => user.role === 'VIEWER')!;
    const auth = { Authorization: `Bearer ${(await loginAs(admin.email, admin.password)).token}` };

    const created = await request('POST', '/api-keys', { headers: auth, body: { name: 'e2e key' } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^skm_/);

    const listed = await request('GET', '/api-keys', { headers: auth });
    const statuses = Object.fromEntries(
      listed.body.items.map((key: { id: string; status: string }) => [key.id, key.status]),
    );
    expect(statuses[created.body.id]).toBe('active');
    expect(statuses[acme.apiKeys[1]!.id]).toBe('revoked');
    expect(statuses[acme.apiKeys[2]!.id]).toBe('expired');

    const revoked = await request('DELETE', `/api-keys/${created.body.id}`, { headers: auth });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: created.body.id, status: 'revoked', graceEnded: null });

    const viewerAuth = { Authorization: `Bearer ${(await loginAs(viewer.email, viewer.password)).token}` };
    expect((await request('GET', '/api-keys', { headers: viewerAuth })).status).toBe(200);
    expect((await request('POST', '/api-keys', { headers: viewerAuth, body: { name: 'nope' } })).status).toBe(
      403,
    );
  });

  it('roll over HTTP: the new key pushes, the old one works through its grace period; a scoped key is held to its KPIs', async () => {
    const acme = seed().tenants[0]!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const auth = { Authorization: `Bearer ${(await loginAs(admin.email, admin.password)).token}` };
    const [bsc, other] = [
      acme.kpis.find((k) => k.type === 'BSC_KPI')!,
      acme.kpis.find((k) => k.type !== 'BSC_KPI')!,
    ];
    const created = await request('POST', '/api-keys', {
      headers: auth,
      body: { name: 'e2e scoped', kpiIds: [bsc.id] },
    });
    expect(created.status).toBe(201);
    // A roll without a body, as `curl -X POST` sends it.
    const rolled = await request('POST', `/api-keys/${created.body.id}/roll`, { headers: auth });
    expect(rolled.status, JSON.stringify(rolled.body)).toBe(201);
    expect(rolled.body).toMatchObject({
      name: 'e2e scoped',
      kpiIds: [bsc.id],
      replaces: { id: created.body.id },
    });
    const push = (key: string, kpi: { id: string; type: string }) =>
      request('POST', '/integrations/push/measurement', {
        headers: { 'x-api-key': key },
        body: { kpiId: kpi.id, kpiType: kpi.type, actual: 1 },
      });
    expect((await push(rolled.body.key, bsc)).status).toBeOneOf([200, 201]);
    expect((await push(created.body.key, bsc)).status).toBeOneOf([200, 201]);
    const outside = await push(rolled.body.key, other);
    expect(outside.status).toBe(403);
    expect(outside.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(outside.body).toMatchObject({
      type: expect.stringMatching(/\/kpi-outside-key-scope$/),
      outOfScopeKpiIds: [other.id],
    });
    for (const id of [created.body.id, rolled.body.id])
      await request('DELETE', `/api-keys/${id}`, { headers: auth });
  });
});
