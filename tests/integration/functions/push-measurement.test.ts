import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../../lib/api-keys/key-format';
import { listApiKeys } from '../../../lib/api-keys/service';
import { getApiKeyByHash } from '../../../lib/db/api-keys';
import { keys } from '../../../lib/db/keys';
import { describeApiKeyAuth } from '../../support/api-key-auth-cases';
import { createRawKey, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { measurementFor, pushOne, storedMeasurements } from '../../support/push';

const currentMonth = () => {
  const now = new Date();
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0));
  return { periodStart: start.toISOString().slice(0, 10), periodEnd: end.toISOString().slice(0, 10) };
};

let tenant: TestTenant;
let apiKey: string;
beforeAll(async () => {
  tenant = await createTestTenant();
  apiKey = await createRawKey(tenant.tenant.id);
});

describe('POST /integrations/push/measurement: happy path', () => {
  it('201 with the stored measurement; the period defaults to the current UTC month', async () => {
    const kpi = tenant.kpis[0]!;
    const result = await pushOne(apiKey, measurementFor(kpi, { actual: 12.5, target: 20 }));
    expect(result.status).toBe(201);
    expect(result.body).toEqual({
      id: expect.any(String),
      kpiId: kpi.id,
      kpiType: kpi.type,
      actual: 12.5,
      target: 20,
      forecast: null,
      ...currentMonth(),
      createdAt: expect.any(String),
      updatedAt: result.body.createdAt,
      replaced: null,
    });
    expect(await storedMeasurements(tenant, kpi.id)).toEqual([result.body]);
  });

  it('re-push of the same period: 200, one record with the latest values, createdAt kept', async () => {
    const kpi = tenant.kpis[1]!;
    const period = { periodStart: '2026-01-01', periodEnd: '2026-01-31' };
    const first = await pushOne(apiKey, measurementFor(kpi, { ...period, actual: 1, forecast: 5 }));
    const second = await pushOne(apiKey, measurementFor(kpi, { ...period, actual: 2, forecast: null }));
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      id: first.body.id,
      actual: 2,
      forecast: null,
      createdAt: first.body.createdAt,
    });
    expect(second.body.updatedAt >= first.body.updatedAt).toBe(true);
    expect(await storedMeasurements(tenant, kpi.id)).toEqual([second.body]);
  });

  it("a missing periodEnd is the end of periodStart's month (and vice versa); a bound inside the month is 400", async () => {
    const kpi = tenant.kpis[2]!;
    expect((await pushOne(apiKey, measurementFor(kpi, { periodStart: '2024-02-01' }))).body.periodEnd).toBe(
      '2024-02-29',
    );
    expect((await pushOne(apiKey, measurementFor(kpi, { periodEnd: '2026-04-30' }))).body.periodStart).toBe(
      '2026-04-01',
    );
    const inside = await pushOne(apiKey, measurementFor(kpi, { periodEnd: '2026-04-15' }));
    expect(inside.status).toBe(400);
    expect(inside.body.errors).toEqual([
      { path: 'periodEnd', message: expect.stringContaining('period is month') },
    ]);
  });

  it('stores which key wrote it and when it was received (not shown in responses)', async () => {
    const kpi = tenant.kpis[3]!;
    const result = await pushOne(
      apiKey,
      measurementFor(kpi, { periodStart: '2025-05-01', periodEnd: '2025-05-31' }),
    );
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.measurement(kpi.id, '2025-05-01', '2025-05-31') }),
    );
    const key = await getApiKeyByHash(db, hashApiKey(apiKey));
    expect(Item).toMatchObject({
      apiKeyId: key?.id,
      apiKeyPrefix: apiKey.slice(0, 8),
      receivedAt: result.body.createdAt,
    });
    expect(result.body.apiKeyId).toBeUndefined();
  });

  it('lastUsedAt moves forward after a successful push and not after a rejected one', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const id = (await getApiKeyByHash(db, hashApiKey(key)))?.id;
    // What the key list shows (GET /api-keys): lastUsedAt lives on the key's usage item.
    const lastUsed = async () =>
      (await listApiKeys(db, tenant.tenant.id, { limit: 1000 })).items.find((k) => k.id === id)?.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await pushOne(
      key,
      measurementFor(tenant.kpis[0]!, { periodStart: '2025-01-01', periodEnd: '2025-01-31' }),
    );
    const first = await lastUsed();
    expect(first).toEqual(expect.any(String));
    await pushOne(key, measurementFor(tenant.kpis[0]!, { actual: 'x' }));
    await pushOne(key, { ...measurementFor(tenant.kpis[0]!), kpiId: randomUUID() });
    expect(await lastUsed()).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await pushOne(
      key,
      measurementFor(tenant.kpis[0]!, { periodStart: '2025-02-01', periodEnd: '2025-02-28' }),
    );
    expect((await lastUsed())! > first!).toBe(true);
  });

  it('50 concurrent pushes to distinct periods give 50 records', async () => {
    const kpi = tenant.kpis[4]!;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const start = new Date(Date.UTC(2023, i, 1)).toISOString().slice(0, 10);
        const end = new Date(Date.UTC(2023, i + 1, 0)).toISOString().slice(0, 10);
        return pushOne(apiKey, measurementFor(kpi, { actual: i, periodStart: start, periodEnd: end }));
      }),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const stored = await storedMeasurements(tenant, kpi.id);
    expect(stored).toHaveLength(50);
    expect(new Set(stored.map((m) => m.actual)).size).toBe(50);
  });
});

describe('POST /integrations/push/measurement: errors', () => {
  const invalid: [string, Record<string, unknown>, string][] = [
    ['kpiId not a UUID', { kpiId: 'kpi-1' }, 'kpiId'],
    ['unknown kpiType', { kpiType: 'NPS' }, 'kpiType'],
    ['actual missing', { actual: undefined }, 'actual'],
    ['actual a string', { actual: '42' }, 'actual'],
    ['target not a number', { target: 'high' }, 'target'],
    ['impossible date', { periodStart: '2026-02-30', periodEnd: '2026-03-01' }, 'periodStart'],
    ['not YYYY-MM-DD', { periodEnd: '2026-03-01T00:00:00Z' }, 'periodEnd'],
    ['start after end', { periodStart: '2026-03-02', periodEnd: '2026-03-01' }, 'periodStart'],
    ['unknown field', { unit: 'EUR' }, 'unit'],
  ];
  it.each(invalid)('400 when %s, naming the field', async (_, overrides, path) => {
    const result = await pushOne(apiKey, measurementFor(tenant.kpis[0]!, overrides));
    expect(result.status).toBe(400);
    expect(result.body.type).toMatch(/\/validation-failed$/);
    expect(result.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
  });

  it('400 names every offending field at once', async () => {
    const result = await pushOne(apiKey, { kpiId: 1, kpiType: 'X', actual: null, extra: true });
    expect(result.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'actual',
      'extra',
      'kpiId',
      'kpiType',
    ]);
  });

  it('400 for malformed JSON and an empty body, 415 for a wrong Content-Type', async () => {
    expect((await pushOne(apiKey, '{"kpiId":', { 'Content-Type': 'application/json' })).status).toBe(400);
    expect((await pushOne(apiKey, '', { 'Content-Type': 'application/json' })).status).toBe(400);
    expect((await pushOne(apiKey, '{}', { 'Content-Type': 'text/csv' })).status).toBe(415);
  });

  it('404 for an unknown KPI, and for a KPI pushed with another kpiType', async () => {
    const unknown = randomUUID();
    const result = await pushOne(apiKey, measurementFor(tenant.kpis[0]!, { kpiId: unknown }));
    expect(result.status).toBe(404);
    expect(result.body.missingKpiIds).toEqual([unknown]);
    const kpi = tenant.kpis.find((k) => k.type === 'BSC_KPI')!;
    expect((await pushOne(apiKey, measurementFor(kpi, { kpiType: 'SWOT_KPI' }))).status).toBe(404);
  });
});

describe('POST /integrations/push/measurement: security', () => {
  it("a key of tenant A pushing to tenant B's KPI: 404 like a missing KPI, and B's data unchanged", async () => {
    const other = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const theirs = other.kpis[0]!;
    const result = await pushOne(apiKey, measurementFor(theirs));
    expect(result.status).toBe(404);
    const missing = await pushOne(apiKey, measurementFor(theirs, { kpiId: randomUUID() }));
    const { requestId: _a, missingKpiIds: _b, detail: _c, ...foreign } = result.body;
    const { requestId: _d, missingKpiIds: _e, detail: _f, ...unknown } = missing.body;
    expect(foreign).toEqual(unknown);
    expect(await storedMeasurements(other, theirs.id)).toEqual([]);
  });

  it('authentication comes before validation: a malformed or unknown key with a bad body is 401', async () => {
    // A well-formed key with a valid checksum that no one was given reaches the database read: it
    // must still be refused there, before the body is looked at.
    for (const key of ['skm_unknown', generateApiKey()]) {
      for (const [body, contentType] of [
        ['{bad json', 'application/json'],
        ['{}', 'text/plain'],
      ]) {
        const result = await pushOne(key, body, { 'Content-Type': contentType as string });
        expect(result.status).toBe(401);
        expect(result.body.type).toMatch(/\/invalid-api-key$/);
      }
    }
  });

  it('the raw key is never echoed', async () => {
    const result = await pushOne(apiKey, measurementFor(tenant.kpis[0]!, { kpiId: randomUUID() }));
    expect(JSON.stringify(result)).not.toContain(apiKey);
  });
});

describeApiKeyAuth('POST /integrations/push/measurement', (key, owner, headers) =>
  pushOne(key, measurementFor(owner.kpis[0]!), headers),
);
