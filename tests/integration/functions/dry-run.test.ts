import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as singleHandler } from '../../../functions/push-measurement';
import { handler as batchHandler } from '../../../functions/push-measurements-batch';
import { generateApiKey, hashApiKey } from '../../../lib/api-keys/key-format';
import { listApiKeys } from '../../../lib/api-keys/service';
import { getApiKeyByHash } from '../../../lib/db/api-keys';
import { createGateway } from '../../support/api-gateway';
import { createRawKey, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { measurementFor, pushOne, storedMeasurements } from '../../support/push';

/** `?dryRun=true` on both push endpoints. */
let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] });
});

const gateway = createGateway();
const single = (key: string, body: unknown, query: Record<string, string> = { dryRun: 'true' }) =>
  gateway.invoke(singleHandler, {
    method: 'POST',
    path: '/api/integrations/push/measurement',
    headers: { 'x-api-key': key },
    query,
    body,
  });
const batch = (key: string, measurements: unknown[], query: Record<string, string> = { dryRun: 'true' }) =>
  gateway.invoke(batchHandler, {
    method: 'POST',
    path: '/api/integrations/push/measurements/batch',
    headers: { 'x-api-key': key },
    query,
    body: { measurements },
  });

const lastUsedOf = async (key: string) => {
  const id = (await getApiKeyByHash(db, hashApiKey(key)))!.id;
  return (await listApiKeys(db, tenant.tenant.id, { limit: 1000 })).items.find((k) => k.id === id)!
    .lastUsedAt;
};

describe('dry run: happy path', () => {
  it('single: 200 saying "created" with the record it would store; nothing stored, lastUsedAt untouched', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const kpi = tenant.kpis[0]!;
    const period = { periodStart: '2025-06-01', periodEnd: '2025-06-30' };
    const result = await single(key, measurementFor(kpi, { ...period, actual: 7, target: 9 }));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      dryRun: true,
      status: 'created',
      measurement: { id: null, kpiId: kpi.id, actual: 7, target: 9, forecast: null, ...period },
    });
    expect(Date.parse(result.body.measurement.createdAt)).not.toBeNaN();
    expect(await storedMeasurements(tenant, kpi.id)).toEqual([]);
    expect(await lastUsedOf(key)).toBeNull();
  });

  it('says "updated" for a period already stored, with its id, and changes nothing', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const kpi = tenant.kpis[1]!;
    const period = { periodStart: '2025-07-01', periodEnd: '2025-07-31' };
    const stored = await pushOne(key, measurementFor(kpi, { ...period, actual: 1 }));
    expect(stored.status).toBe(201);
    const result = await single(key, measurementFor(kpi, { ...period, actual: 2 }));
    expect(result.body).toMatchObject({
      dryRun: true,
      status: 'updated',
      measurement: { id: stored.body.id, actual: 2, createdAt: stored.body.createdAt },
    });
    expect((await storedMeasurements(tenant, kpi.id)).map((m) => m.actual)).toEqual([1]);
  });

  it('batch: 200 with dryRun and the status of every element; nothing stored', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const [kpi] = tenant.kpis;
    const existing = await pushOne(
      key,
      measurementFor(kpi!, { periodStart: '2025-08-01', periodEnd: '2025-08-31' }),
    );
    const result = await batch(key, [
      measurementFor(kpi!, { periodStart: '2025-08-01', periodEnd: '2025-08-31' }),
      measurementFor(kpi!, { periodStart: '2025-09-01', periodEnd: '2025-09-30' }),
    ]);
    expect(result.status).toBe(200);
    expect(result.body.dryRun).toBe(true);
    expect(result.body.items.map((i: { status: string }) => i.status)).toEqual(['updated', 'created']);
    expect(result.body.items[0].measurement.id).toBe(existing.body.id);
    expect((await storedMeasurements(tenant, kpi!.id)).map((m) => m.periodStart)).not.toContain('2025-09-01');
  });

  it('counts against the rate limit like any request', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const first = await single(key, measurementFor(tenant.kpis[0]!));
    const second = await single(key, measurementFor(tenant.kpis[0]!));
    expect(Number(second.headers['ratelimit-remaining'])).toBe(
      Number(first.headers['ratelimit-remaining']) - 1,
    );
  });
});

describe('dry run: errors, with the same answers as a push', () => {
  it('400, 404 and 401 as without dryRun', async () => {
    const key = await createRawKey(tenant.tenant.id);
    expect((await single(key, measurementFor(tenant.kpis[0]!, { actual: 'x' }))).status).toBe(400);
    expect((await single(key, measurementFor(tenant.kpis[0]!, { kpiId: randomUUID() }))).status).toBe(404);
    expect((await single(generateApiKey(), measurementFor(tenant.kpis[0]!))).status).toBe(401);
    expect((await batch(key, [])).status).toBe(400);
  });

  it('dryRun must be true or false, and no other query parameter is accepted: 400 after authentication', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const bad = await single(key, measurementFor(tenant.kpis[0]!), { dryRun: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'dryRun', message: 'dryRun must be true or false' }]);
    expect(bad.body.detail).toBe('The query string has 1 invalid field(s).');
    expect((await single(key, measurementFor(tenant.kpis[0]!), { dry: 'true' })).status).toBe(400);
    // Authentication still comes first: an unknown key with a bad query string is 401.
    expect((await single(generateApiKey(), measurementFor(tenant.kpis[0]!), { dryRun: 'yes' })).status).toBe(
      401,
    );
    // dryRun=false is a real push.
    const real = await single(key, measurementFor(tenant.kpis[0]!, { periodStart: '2025-10-01' }), {
      dryRun: 'false',
    });
    expect(real.status).toBe(201);
  });
});
