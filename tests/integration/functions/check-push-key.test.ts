import { beforeAll, describe, expect, it } from 'vitest';
import { handler as checkHandler } from '../../../functions/check-push-key';
import { generateApiKey } from '../../../lib/api-keys/key-format';
import { createApiKey, revokeApiKey } from '../../../lib/db/api-keys';
import { createGateway } from '../../support/api-gateway';
import { createRawKey, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { measurementFor, pushOne } from '../../support/push';

/** Issue 12: GET /integrations/push/key, behind the push routes' authorizer. */
let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ plan: 'business', kpiTypes: ['BSC_KPI'] });
});

const gateway = createGateway();
const check = (key: string | undefined) =>
  gateway.invoke(checkHandler, {
    path: '/api/integrations/push/key',
    headers: key === undefined ? {} : { 'x-api-key': key },
  });

describe('key check: happy path', () => {
  it('200 with the key, its organization and the rate budget, without the key itself', async () => {
    const created = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'CI',
      expiresAt: '2040-01-01T00:00:00.000Z',
    });
    const result = await check(created.key);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      key: {
        id: created.id,
        prefix: created.prefix,
        name: 'CI',
        status: 'active',
        createdAt: created.createdAt,
        expiresAt: '2040-01-01T00:00:00.000Z',
      },
      organization: { id: tenant.tenant.id, plan: 'business', pushEnabled: true },
      rateLimit: { limit: 300, remaining: 300, resetSeconds: expect.any(Number), windowSeconds: 60 },
    });
    expect(result.headers['ratelimit-remaining']).toBe('300');
    expect(JSON.stringify(result.body)).not.toContain(created.key);
  });

  it('spends no budget, and shows what the pushes spent', async () => {
    const key = await createRawKey(tenant.tenant.id);
    await check(key);
    await check(key);
    expect((await check(key)).body.rateLimit.remaining).toBe(300);
    await pushOne(key, measurementFor(tenant.kpis[0]!));
    expect((await check(key)).body.rateLimit.remaining).toBe(299);
  });

  it('200 with pushEnabled false when the plan lacks push (the key itself is fine)', async () => {
    const pushless = await createTestTenant({ features: [], kpiTypes: ['BSC_KPI'] });
    const result = await check(await createRawKey(pushless.tenant.id));
    expect(result.status).toBe(200);
    expect(result.body.organization.pushEnabled).toBe(false);
  });
});

describe('key check: errors, as a push', () => {
  it('401 for no key, a malformed and an unknown key', async () => {
    for (const key of [undefined, 'skm_x', generateApiKey()]) {
      const result = await check(key);
      expect(result.status).toBe(401);
      expect(result.body.type).toMatch(/\/invalid-api-key$/);
    }
  });

  it('403 for a revoked key, an expired key and a key of an inactive tenant', async () => {
    const revoked = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'gone' });
    await revokeApiKey(db, tenant.tenant.id, revoked.id);
    expect((await check(revoked.key)).body.type).toMatch(/\/api-key-revoked$/);
    const expired = await createRawKey(tenant.tenant.id, new Date(Date.now() - 1000).toISOString());
    expect((await check(expired)).body.type).toMatch(/\/api-key-expired$/);
    const inactive = await createTestTenant({ active: false, kpiTypes: [] });
    const result = await check(await createRawKey(inactive.tenant.id));
    expect(result.status).toBe(403);
    expect(result.body.type).toMatch(/\/tenant-inactive$/);
  });
});
