import { describe, expect, it } from 'vitest';
import { loginAs, request, seed } from '../support/http';

describe('API keys over HTTP (serverless-offline)', () => {
  it('the seed has an active, a revoked and an expired key for Acme and an active key elsewhere', () => {
    const [acme, ...others] = seed().tenants;
    expect(acme!.apiKeys.map((key) => key.status)).toEqual(['active', 'revoked', 'expired']);
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
    expect(revoked.status).toBe(204);

    const viewerAuth = { Authorization: `Bearer ${(await loginAs(viewer.email, viewer.password)).token}` };
    expect((await request('GET', '/api-keys', { headers: viewerAuth })).status).toBe(200);
    expect((await request('POST', '/api-keys', { headers: viewerAuth, body: { name: 'nope' } })).status).toBe(
      403,
    );
  });
});
