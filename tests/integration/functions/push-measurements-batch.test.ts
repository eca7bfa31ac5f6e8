import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as batchHandler } from '../../../functions/push-measurements-batch';
import { KPI_TYPES } from '../../../lib/domain/kpi';
import { describeApiKeyAuth } from '../../support/api-key-auth-cases';
import { invoke } from '../../support/events';
import { createRawKey, createTestTenant, type TestTenant } from '../../support/fixtures';
import { measurementFor, monthlyMeasurements, pushBatch, storedMeasurements } from '../../support/push';

const stored = storedMeasurements;

const storedCount = async (tenant: TestTenant) =>
  (await Promise.all(tenant.kpis.map((kpi) => stored(tenant, kpi.id)))).flat().length;

/** 50 valid measurements over the tenant's 8 KPI types, each with its own day of 2024. */
const fifty = (tenant: TestTenant, year = 2024): Record<string, unknown>[] =>
  monthlyMeasurements(tenant.kpis, 50, year);

let tenant: TestTenant;
let apiKey: string;
beforeAll(async () => {
  tenant = await createTestTenant();
  apiKey = await createRawKey(tenant.tenant.id);
});

describe('POST /integrations/push/measurements/batch: happy path', () => {
  it('stores 50 valid elements of mixed types; 200 with items in request order', async () => {
    const batch = fifty(tenant);
    const result = await pushBatch(apiKey, batch);
    expect(result.status).toBe(200);
    expect(result.body.count).toBe(50);
    expect(new Set(batch.map((m) => m.kpiType)).size).toBe(KPI_TYPES.length);
    result.body.items.forEach(
      (
        item: { index: number; status: string; measurement: { actual: number; kpiId: string } },
        i: number,
      ) => {
        expect(item).toMatchObject({
          index: i,
          status: 'created',
          measurement: { actual: i, kpiId: batch[i]!.kpiId },
        });
      },
    );
    expect(await storedCount(tenant)).toBe(50);
  });

  it('re-pushing the same batch updates in place: status "updated", no duplicates', async () => {
    const other = await createTestTenant({ kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] });
    const key = await createRawKey(other.tenant.id);
    const batch = fifty(other, 2025);
    const first = await pushBatch(key, batch);
    const again = await pushBatch(
      key,
      batch.map((m) => ({ ...m, actual: (m.actual as number) + 1000 })),
    );
    expect(again.status).toBe(200);
    expect(again.body.items.every((item: { status: string }) => item.status === 'updated')).toBe(true);
    expect(again.body.items[7].measurement.id).toBe(first.body.items[7].measurement.id);
    expect(again.body.items[7].measurement.createdAt).toBe(first.body.items[7].measurement.createdAt);
    expect(await storedCount(other)).toBe(50);
    expect((await stored(other, other.kpis[0]!.id)).every((m) => m.actual >= 1000)).toBe(true);
  });

  it('elements may omit optional fields', async () => {
    const result = await pushBatch(apiKey, [
      { kpiId: tenant.kpis[0]!.id, kpiType: tenant.kpis[0]!.type, actual: 1 },
    ]);
    expect(result.status).toBe(200);
    expect(result.body.items[0].measurement).toMatchObject({ target: null, forecast: null });
  });
});

describe('POST /integrations/push/measurements/batch: errors (all or nothing)', () => {
  it('one bad element at index 7: 400 naming measurements[7], none of the other 49 stored', async () => {
    const fresh = await createTestTenant();
    const key = await createRawKey(fresh.tenant.id);
    const batch: Record<string, unknown>[] = fifty(fresh);
    batch[7] = { ...batch[7], actual: 'NaN' };
    const result = await pushBatch(key, batch);
    expect(result.status).toBe(400);
    expect(result.body.errors).toEqual([{ path: 'measurements[7].actual', message: expect.any(String) }]);
    expect(await storedCount(fresh)).toBe(0);
  });

  it('one foreign KPI: 404 naming every missing id, nothing stored', async () => {
    const fresh = await createTestTenant();
    const key = await createRawKey(fresh.tenant.id);
    const foreign = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const batch = fifty(fresh);
    const missing = [foreign.kpis[0]!.id, randomUUID()];
    batch[3] = measurementFor(foreign.kpis[0]!);
    batch[40] = { ...batch[40]!, kpiId: missing[1]! };
    const result = await pushBatch(key, batch);
    expect(result.status).toBe(404);
    expect(result.body.missingKpiIds.sort()).toEqual(missing.sort());
    expect(await storedCount(fresh)).toBe(0);
    expect(await stored(foreign, foreign.kpis[0]!.id)).toEqual([]);
  });

  it('two elements with the same KPI and period: 400 naming both indexes', async () => {
    const m = measurementFor(tenant.kpis[0]!, { periodStart: '2022-01-01', periodEnd: '2022-01-31' });
    const result = await pushBatch(apiKey, [m, measurementFor(tenant.kpis[1]!), { ...m, actual: 2 }]);
    expect(result.status).toBe(400);
    expect(result.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'measurements[0]',
      'measurements[2]',
    ]);
  });

  it('400 for an empty batch, more than 50, a missing array and unknown fields', async () => {
    const tooMany = [...fifty(tenant), measurementFor(tenant.kpis[0]!)];
    for (const body of [[], tooMany]) {
      const result = await pushBatch(apiKey, body);
      expect(result.status).toBe(400);
      expect(result.body.errors[0].path).toBe('measurements');
    }
    expect((await pushBatch(apiKey, undefined, {})).status).toBe(415);
    const extra = await pushBatch(apiKey, [measurementFor(tenant.kpis[0]!, { note: 'x' })]);
    expect(extra.body.errors[0].path).toBe('measurements[0].note');
  });
});

describeApiKeyAuth('POST /integrations/push/measurements/batch', (key, owner, headers) =>
  pushBatch(key, [measurementFor(owner.kpis[0]!)], headers),
);

describe('POST /integrations/push/measurements/batch: faults', () => {
  it('with too little Lambda time left, answers 503 with Retry-After before writing anything', async () => {
    const own = await createTestTenant();
    const key = await createRawKey(own.tenant.id);
    const batch = fifty(own, 2027);
    const result = await invoke(
      batchHandler,
      {
        method: 'POST',
        path: '/api/integrations/push/measurements/batch',
        headers: { 'x-api-key': key },
        body: { measurements: batch },
      },
      { remainingMs: 1500 },
    );
    expect(result.status).toBe(503);
    expect(result.headers['retry-after']).toBe('1');
    expect(result.body.type).toMatch(/\/service-unavailable$/);
    expect(await storedCount(own)).toBe(0);
    // The same batch with time enough is written whole.
    expect((await pushBatch(key, batch)).status).toBe(200);
    expect(await storedCount(own)).toBe(50);
  });
});
