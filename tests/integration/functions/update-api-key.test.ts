import { beforeAll, describe, expect, it } from 'vitest';
import { handler as usageHandler } from '../../../functions/get-api-key-usage';
import { handler as listHandler } from '../../../functions/list-api-keys';
import { handler as pushHandler } from '../../../functions/push-measurement';
import { handler as updateHandler } from '../../../functions/update-api-key';
import { createApiKey, revokeApiKey } from '../../../lib/api-keys/service';
import { describeAllowedSourcesInput } from '../../support/allowed-sources-cases';
import { createGateway } from '../../support/api-gateway';
import { invoke } from '../../support/events';
import { bearer, createTestTenant, db, publish, type TestTenant } from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { captureOutput } from '../../support/output';
import { measurementFor, storedMeasurements } from '../../support/push';

const patch = (headers: Record<string, string>, id: string, body: unknown) =>
  invoke(updateHandler, {
    method: 'PATCH',
    path: `/api/api-keys/${id}`,
    resource: '/api/api-keys/{id}',
    pathParameters: { id },
    headers,
    body,
  });
const admin = (tenant: TestTenant) => bearer(tenant.users.ADMIN.token);
const listed = async (tenant: TestTenant, id: string) =>
  (await invoke(listHandler, { path: '/api/api-keys', headers: admin(tenant) })).body.items.find(
    (key: { id: string }) => key.id === id,
  );

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTestTenant(), createTestTenant()]);
});

describe('PATCH /api-keys/{id}: happy path', () => {
  it('renames a key; its list, scope, expiry and raw key stay as they are, and the change is audited', async () => {
    const created = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'cron',
      expiresAt: '2040-01-01T00:00:00.000Z',
      kpiIds: [tenant.kpis[0]!.id],
      allowedSources: ['203.0.113.7/32'],
    });
    const { result, lines } = await captureOutput(() =>
      patch(admin(tenant), created.id, { name: '  Nightly cron (EU) ' }),
    );
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      id: created.id,
      prefix: created.prefix,
      name: 'Nightly cron (EU)',
      status: 'active',
      expiresAt: '2040-01-01T00:00:00.000Z',
      kpiIds: [tenant.kpis[0]!.id],
      allowedSources: ['203.0.113.7/32'],
    });
    expect(result.body.key).toBeUndefined();
    expect(await listed(tenant, created.id)).toMatchObject({
      name: 'Nightly cron (EU)',
      allowedSources: ['203.0.113.7/32'],
    });
    expect(lines).toContainEqual(
      expect.objectContaining({ audit: 'api_key.updated', keyId: created.id, renamed: true }),
    );
    expect(lines.find((line) => line.audit === 'api_key.updated').allowedSources).toBeUndefined();
  });

  it('sets the list and keeps the name; null lets any address in again; both at once', async () => {
    const { id } = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'runner' });
    const { result, lines } = await captureOutput(() =>
      patch(admin(tenant), id, { allowedSources: ['198.51.100.0/24', '2001:db8::/32'] }),
    );
    expect(result.body).toMatchObject({
      name: 'runner',
      allowedSources: ['198.51.100.0/24', '2001:db8::/32'],
    });
    expect(lines.find((line) => line.audit === 'api_key.updated')).toMatchObject({
      renamed: false,
      allowedSources: '198.51.100.0/24 2001:db8::/32',
    });
    const cleared = await captureOutput(() => patch(admin(tenant), id, { allowedSources: null }));
    expect(cleared.result.body).toMatchObject({ name: 'runner', allowedSources: null });
    expect(cleared.lines.find((line) => line.audit === 'api_key.updated').allowedSources).toBe('any');
    expect((await listed(tenant, id)).allowedSources).toBeNull();
    const both = await patch(admin(tenant), id, { name: 'runner 2', allowedSources: ['192.0.2.1'] });
    expect(both.body).toMatchObject({ name: 'runner 2', allowedSources: ['192.0.2.1/32'] });
  });
});

describe('PATCH /api-keys/{id}: errors', () => {
  it('400 for a body that changes nothing, an unknown field or a bad name', async () => {
    const { id } = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'unchanged' });
    for (const body of [{}, { name: 'x', scope: 'all' }, { name: '   ' }, { name: 'x'.repeat(101) }]) {
      const result = await patch(admin(tenant), id, body);
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.body.type).toMatch(/\/validation-failed$/);
    }
    expect((await listed(tenant, id)).name).toBe('unchanged');
  });

  it('409 api-key-not-active for a revoked or expired key, which keeps its name and list', async () => {
    const revoked = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'gone',
      allowedSources: ['192.0.2.9/32'],
    });
    await revokeApiKey(db, tenant.tenant.id, revoked.id, undefined, publish);
    const expired = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'old',
      expiresAt: new Date(Date.now() + 1000).toISOString(),
    });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (const [{ id }, status] of [
      [revoked, 'revoked'],
      [expired, 'expired'],
    ] as const) {
      const result = await patch(admin(tenant), id, { name: 'renamed', allowedSources: null });
      expect(result.status).toBe(409);
      expect(result.body).toMatchObject({
        type: expect.stringMatching(/\/api-key-not-active$/),
        keyStatus: status,
      });
    }
    expect(await listed(tenant, revoked.id)).toMatchObject({
      name: 'gone',
      allowedSources: ['192.0.2.9/32'],
    });
    expect((await listed(tenant, expired.id)).name).toBe('old');
  });

  it("404 for an unknown id and for another tenant's key, which stays as it is", async () => {
    const theirs = await createApiKey(db, { tenantId: other.tenant.id, name: 'theirs' });
    expect((await patch(admin(tenant), theirs.id, { allowedSources: ['192.0.2.1'] })).status).toBe(404);
    expect((await patch(admin(tenant), '00000000-0000-4000-8000-000000000000', { name: 'x' })).status).toBe(
      404,
    );
    expect((await listed(other, theirs.id)).allowedSources).toBeNull();
  });
});

describe('PATCH /api-keys/{id}: a narrowed list applies to the next push', () => {
  it('while API Gateway still holds an Allow for the address, the handler refuses it (403 source-not-allowed) before any write', async () => {
    // The authorizer's answers are cached per key and address for 300 s, as on AWS.
    const gateway = createGateway({ cacheTtlMs: 300_000 });
    const kpi = tenant.kpis[0]!;
    const created = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'narrowed',
      allowedSources: ['198.51.100.0/24'],
    });
    const push = (sourceIp: string, actual: number) =>
      gateway.invoke(pushHandler, {
        method: 'POST',
        path: '/api/integrations/push/measurement',
        headers: { 'x-api-key': created.key },
        body: measurementFor(kpi, { actual, periodStart: '2031-01-01', periodEnd: '2031-01-31' }),
        sourceIp,
      });
    expect((await push('198.51.100.23', 1)).status).toBe(201);
    // Another address of the same key is another cache entry: the authorizer runs and denies it.
    const runs = gateway.state.authorizerRuns;
    const elsewhere = await push('203.0.113.50', 2);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toMatchObject({
      type: expect.stringMatching(/\/source-not-allowed$/),
      sourceIp: '203.0.113.50',
    });
    expect(gateway.state.authorizerRuns).toBe(runs + 1);

    expect((await patch(admin(tenant), created.id, { allowedSources: ['198.51.100.200/32'] })).status).toBe(
      200,
    );
    const before = gateway.state.authorizerRuns;
    const refused = await push('198.51.100.23', 3);
    // The cached Allow let it through to the handler, which read the key again.
    expect(gateway.state.authorizerRuns).toBe(before);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      type: expect.stringMatching(/\/source-not-allowed$/),
      sourceIp: '198.51.100.23',
    });
    expect(refused.headers['x-request-id']).toBeDefined();
    const stored = (await storedMeasurements(tenant, kpi.id)).filter((m) => m.periodStart === '2031-01-01');
    expect(stored.map((m) => m.actual)).toEqual([1]);

    const usage = await invoke(usageHandler, {
      path: `/api/api-keys/${created.id}/usage`,
      pathParameters: { id: created.id },
      headers: admin(tenant),
    });
    expect(usage.body.totals.refused.source).toBe(2);
    expect(usage.body.totals.lastRefusedSourceIp).toBe('198.51.100.23');
  });
});

describeAllowedSourcesInput('PATCH /api-keys/{id}', async (owner, allowedSources) => {
  const { id } = await createApiKey(db, { tenantId: owner.tenant.id, name: 'allowlist case' });
  return { result: await patch(admin(owner), id, { allowedSources }), id };
});

describeJwtAuth(
  'PATCH /api-keys/{id}',
  async (headers, owner) => {
    const { id } = await createApiKey(db, { tenantId: owner.tenant.id, name: 'auth case' });
    return patch(headers, id, { allowedSources: ['192.0.2.1'] });
  },
  { roles: ['ADMIN'] },
);

describe('PATCH /api-keys/{id}: the KPI scope', () => {
  // A tenant of its own: the plan's maximum of active keys is not the other tests' to share.
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await createTestTenant();
  });
  const pushWith = (key: string, kpi: TestTenant['kpis'][number], actual: number) =>
    invoke(pushHandler, {
      method: 'POST',
      path: '/api/integrations/push/measurement',
      headers: { 'x-api-key': key },
      body: measurementFor(kpi, { actual, periodStart: '2032-01-01', periodEnd: '2032-01-31' }),
    });

  it('sets the scope, which the next push obeys; null lets every KPI in again; each change is audited', async () => {
    const [first, second] = [tenant.kpis[0]!, tenant.kpis[1]!];
    const created = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'scoped later' });
    expect((await pushWith(created.key, second, 1)).status).toBe(201);

    const { result, lines } = await captureOutput(() =>
      patch(admin(tenant), created.id, { kpiIds: [first.id] }),
    );
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ name: 'scoped later', kpiIds: [first.id], allowedSources: null });
    expect(lines.find((line) => line.audit === 'api_key.updated')).toMatchObject({
      keyId: created.id,
      renamed: false,
      scopedKpis: 1,
    });
    expect(lines.find((line) => line.audit === 'api_key.updated').allowedSources).toBeUndefined();
    expect((await listed(tenant, created.id)).kpiIds).toEqual([first.id]);
    const refused = await pushWith(created.key, second, 2);
    expect(refused.status).toBe(403);
    expect(refused.body.type).toMatch(/\/kpi-outside-key-scope$/);
    expect((await pushWith(created.key, first, 3)).status).toBe(201);

    const widened = await captureOutput(() => patch(admin(tenant), created.id, { kpiIds: null }));
    expect(widened.result.body.kpiIds).toBeNull();
    expect(widened.lines.find((line) => line.audit === 'api_key.updated').scopedKpis).toBe('all');
    expect((await listed(tenant, created.id)).kpiIds).toBeNull();
    expect((await pushWith(created.key, second, 4)).status).toBe(200);
  });

  it("400 naming each id that is not the tenant's KPI (another tenant's, or none), and the scope stays", async () => {
    const created = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'scope kept',
      kpiIds: [tenant.kpis[0]!.id],
    });
    const result = await patch(admin(tenant), created.id, {
      kpiIds: [tenant.kpis[1]!.id, other.kpis[0]!.id, '00000000-0000-4000-8000-000000000001'],
    });
    expect(result.status).toBe(400);
    expect(result.body.type).toMatch(/\/validation-failed$/);
    expect(result.body.errors.map((error: { path: string }) => error.path)).toEqual([
      'kpiIds[1]',
      'kpiIds[2]',
    ]);
    for (const body of [
      { kpiIds: [] },
      { kpiIds: ['not-a-uuid'] },
      { kpiIds: [tenant.kpis[1]!.id, tenant.kpis[1]!.id] },
    ]) {
      const refused = await patch(admin(tenant), created.id, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    expect((await listed(tenant, created.id)).kpiIds).toEqual([tenant.kpis[0]!.id]);
  });
});
