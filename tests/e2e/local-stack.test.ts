import { describe, expect, it } from 'vitest';
import { KPI_TYPES } from '../../lib/domain/kpi';
import { baseUrl, loginAs, request, seed } from '../support/http';

describe('npm start: the seed file contract (.local/seed.json)', () => {
  it('names the base URL and four tenants of the documented kinds', () => {
    const data = seed();
    expect(data.baseUrl).toBe(baseUrl());
    expect(data.tenants).toHaveLength(4);
    const [business, free, noPush, inactive] = data.tenants;
    expect(business).toMatchObject({
      plan: 'business',
      active: true,
      features: ['kpi_push_measurement', 'kpi_api_integration'],
    });
    expect(business?.users.map((user) => user.role)).toEqual(expect.arrayContaining(['ADMIN', 'VIEWER']));
    expect(new Set(business?.kpis.map((kpi) => kpi.type))).toEqual(new Set(KPI_TYPES));
    expect(business?.strategicCycles).toHaveLength(2);
    expect(free).toMatchObject({ plan: 'free', active: true, features: ['kpi_push_measurement'] });
    expect(free?.strategicCycles.length).toBeGreaterThan(0);
    expect(noPush).toMatchObject({ active: true, features: [] });
    expect(inactive).toMatchObject({ active: false, features: ['kpi_push_measurement'] });
    for (const tenant of data.tenants) {
      expect(tenant.users.some((user) => user.role === 'ADMIN')).toBe(true);
      expect(tenant.kpis.length).toBeGreaterThan(0);
      for (const kpi of tenant.kpis)
        expect(kpi.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});

describe('the five foundation endpoints over HTTP (serverless-offline)', () => {
  it('login, refresh, and the three reads', async () => {
    const acme = seed().tenants[0]!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const { token, refreshToken, expiresIn } = await loginAs(admin.email, admin.password);
    expect(expiresIn).toBe(86400);
    const auth = { Authorization: `Bearer ${token}`, 'X-Tenant-ID': acme.id };

    const refreshed = await request('POST', '/auth/refresh-token', { body: { refreshToken } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.expiresIn).toBe(86400);

    const cycles = await request('GET', '/strategic-cycles', { headers: auth });
    expect(cycles.status).toBe(200);
    expect(cycles.body.items.map((cycle: { id: string }) => cycle.id)).toEqual(
      acme.strategicCycles.map((c) => c.id),
    );

    const kpis = await request('GET', '/kpis', { headers: auth });
    expect(kpis.body.items.map((kpi: { id: string }) => kpi.id).sort()).toEqual(
      acme.kpis.map((k) => k.id).sort(),
    );

    const measurements = await request('GET', `/kpis/${acme.kpis[0]!.id}/measurements`, { headers: auth });
    expect(measurements.status).toBe(200);
    expect(measurements.body.items).toEqual(expect.any(Array));
  });

  it('problem+json over the wire: 401 with WWW-Authenticate, 400 for malformed JSON, 403 inactive tenant', async () => {
    const unauthenticated = await request('GET', '/kpis');
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(unauthenticated.headers.get('www-authenticate')).toMatch(/^Bearer/);

    const malformed = await request('POST', '/auth/login', { body: '{"email":' });
    expect(malformed.status).toBe(400);

    const umbrella = seed().tenants[3]!;
    const inactive = await request('POST', '/auth/login', {
      body: { email: umbrella.users[0]!.email, password: umbrella.users[0]!.password },
    });
    expect(inactive.status).toBe(403);
  });
});
