import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as checkHandler } from '../../../functions/check-push-key';
import { generateApiKey } from '../../../lib/api-keys/key-format';
import { createApiKey, revokeApiKey } from '../../../lib/api-keys/service';
import { keys } from '../../../lib/db/keys';
import { getTenant } from '../../../lib/db/tenants';
import { checkApiKey } from '../../../lib/push/key-check';
import { type PushDeps, pushMeasurements } from '../../../lib/push/push-service';
import { createTenantCache } from '../../../lib/tenant-cache';
import { createGateway } from '../../support/api-gateway';
import { createRawKey, createTestTenant, db, publish, type TestTenant } from '../../support/fixtures';
import { measurementFor, monthlyMeasurements, pushOne } from '../../support/push';

/** GET /integrations/push/key, behind the push routes' authorizer. */
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
        allowedSources: null,
      },
      source: { ip: '127.0.0.1', allowed: true },
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
    await revokeApiKey(db, tenant.tenant.id, revoked.id, undefined, publish);
    expect((await check(revoked.key)).body.type).toMatch(/\/api-key-revoked$/);
    const expired = await createRawKey(tenant.tenant.id, new Date(Date.now() - 1000).toISOString());
    expect((await check(expired)).body.type).toMatch(/\/api-key-expired$/);
    const inactive = await createTestTenant({ active: false, kpiTypes: [] });
    const result = await check(await createRawKey(inactive.tenant.id));
    expect(result.status).toBe(403);
    expect(result.body.type).toMatch(/\/tenant-inactive$/);
  });
});

describe('key check: the library (lib/push/key-check.ts)', () => {
  // One instant for every call: the counts stay in one window however slowly a loaded machine runs.
  const at = Date.now();
  const deps = (perPlan = 2): PushDeps => ({
    db,
    tenants: createTenantCache({ ttlSeconds: 0, load: (id) => getTenant(db, id) }),
    rateLimits: { windowSeconds: 60, perPlan: { free: perPlan, business: perPlan, enterprise: perPlan } },
    now: () => at,
  });

  it('remaining counts down with pushes and stops at 0', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const remaining = async () => (await checkApiKey(deps(), key, '127.0.0.1')).body.rateLimit.remaining;
    expect(await remaining()).toBe(2);
    for (const [i, expected] of [1, 0, 0].entries()) {
      const body = monthlyMeasurements(tenant.kpis, 1, 2001 + i);
      await pushMeasurements(deps(), { apiKey: key, input: Promise.resolve({ measurements: body }) }).catch(
        () => undefined,
      );
      expect(await remaining()).toBe(expected);
    }
    const { headers } = await checkApiKey(deps(), key, '127.0.0.1');
    expect(headers).toEqual({
      'RateLimit-Limit': '2',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': expect.any(String),
    });
  });

  it('a key whose organization record is gone is refused as inactive, not a 500', async () => {
    const orphan = await createTestTenant({ kpiTypes: [] });
    const key = await createRawKey(orphan.tenant.id);
    await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.tenant(orphan.tenant.id) }));
    await expect(checkApiKey(deps(), key, '127.0.0.1')).rejects.toMatchObject({
      code: 'TENANT_INACTIVE',
      message: 'The organization of this API key is inactive.',
    });
  });
});
