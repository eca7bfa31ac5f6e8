import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../lib/api-keys/key-format';
import { getApiKeyByHash } from '../../../lib/db/api-keys';
import { keys } from '../../../lib/db/keys';
import { listMeasurements } from '../../../lib/db/measurements';
import { storeMeasurements } from '../../../lib/push/store';
import { createRawKey, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { measurementFor, pushBatch, pushOne } from '../../support/push';

/** A measurement keeps its writer and the values it replaced, with their writer and time, in its item. */
let tenant: TestTenant;
let first: string;
let second: string;
beforeAll(async () => {
  tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] });
  first = await createRawKey(tenant.tenant.id);
  second = await createRawKey(tenant.tenant.id);
});

const idOf = async (key: string) => (await getApiKeyByHash(db, hashApiKey(key)))!;
const integration = {
  type: 'integration' as const,
  id: '0193e1a2-3b4c-7d5e-8f60-718293a4b5c6',
  name: 'Billing',
};

describe('when sources meet on one (KPI, period)', () => {
  it('a first write replaced nothing; the same key again replaced its own value', async () => {
    const period = { periodStart: '2025-01-01', periodEnd: '2025-01-31' };
    const created = await pushOne(first, measurementFor(tenant.kpis[0]!, { ...period, actual: 1 }));
    expect(created.body.replaced).toBeNull();
    const again = await pushOne(first, measurementFor(tenant.kpis[0]!, { ...period, actual: 2, target: 5 }));
    const key = await idOf(first);
    expect(again.body.replaced).toEqual({
      actual: 1,
      target: null,
      forecast: null,
      writtenAt: created.body.updatedAt,
      writtenBy: { type: 'apiKey', id: key.id, prefix: key.prefix },
      otherSource: false,
    });
  });

  it('another key over a key, a pull over a push, a push over a pull: otherSource, with who and when', async () => {
    const kpi = tenant.kpis[0]!;
    const period = { periodStart: '2025-02-01', periodEnd: '2025-02-28' };
    const byFirst = await pushOne(first, measurementFor(kpi, { ...period, actual: 10 }));
    const bySecond = await pushOne(second, measurementFor(kpi, { ...period, actual: 11 }));
    const firstKey = await idOf(first);
    expect(bySecond.body.replaced).toMatchObject({
      actual: 10,
      writtenAt: byFirst.body.updatedAt,
      writtenBy: { type: 'apiKey', id: firstKey.id },
      otherSource: true,
    });
    // A pull through the same write path (lib/push/store.ts), with the record read beforehand.
    const [pulled] = await storeMeasurements(
      db,
      [
        {
          ...measurementFor(kpi, { ...period, actual: 12 }),
          periodStart: period.periodStart,
          periodEnd: period.periodEnd,
        } as never,
      ],
      { tenantId: tenant.tenant.id, source: integration, at: new Date().toISOString() },
      () => undefined,
    );
    expect(pulled).toBeDefined();
    const pullOver = (await listMeasurements(db, kpi.id, { limit: 100 })).items.find(
      (m) => m.periodStart === period.periodStart,
    );
    expect(pullOver?.replaced).toBeNull(); // the pull was told there was no record: nothing replaced
    const pushOver = await pushOne(first, measurementFor(kpi, { ...period, actual: 13 }));
    expect(pushOver.body.replaced).toMatchObject({ actual: 12, writtenBy: integration, otherSource: true });
    // The detail and list reads show the same.
    const listed = (await listMeasurements(db, kpi.id, { limit: 100 })).items.find(
      (m) => m.periodStart === period.periodStart,
    );
    expect(listed?.replaced).toMatchObject({ actual: 12, writtenBy: integration, otherSource: true });
    expect(listed).toMatchObject({ actual: 13, apiKeyId: firstKey.id, integrationId: null });
  });

  it('a batch (records read first) says it as the single push does: a pull over a push', async () => {
    const kpi = tenant.kpis[1]!;
    const period = { periodStart: '2025-03-01', periodEnd: '2025-03-31' };
    const pushed = await pushBatch(first, [measurementFor(kpi, { ...period, actual: 20 })]);
    expect(pushed.body.items[0].measurement.replaced).toBeNull();
    const over = await pushBatch(second, [measurementFor(kpi, { ...period, actual: 21, forecast: 3 })]);
    expect(over.body.items[0].measurement.replaced).toMatchObject({ actual: 20, otherSource: true });
    const records = (await listMeasurements(db, kpi.id, { limit: 10 })).items;
    const existing = records.find((m) => m.periodStart === period.periodStart);
    await storeMeasurements(
      db,
      [{ kpiId: kpi.id, kpiType: kpi.type, actual: 22, target: undefined, forecast: undefined, ...period }],
      { tenantId: tenant.tenant.id, source: integration, at: new Date().toISOString() },
      () => existing,
    );
    const after = (await listMeasurements(db, kpi.id, { limit: 10 })).items.find(
      (m) => m.periodStart === period.periodStart,
    );
    const secondKey = await idOf(second);
    expect(after?.replaced).toEqual({
      actual: 21,
      target: null,
      forecast: 3,
      writtenAt: existing!.updatedAt,
      writtenBy: { type: 'apiKey', id: secondKey.id, prefix: secondKey.prefix },
      otherSource: true,
    });
  });

  it('is held by the item the push writes anyway, which stays under 1 KB: one write unit', async () => {
    const kpi = tenant.kpis[0]!;
    const period = { periodStart: '2025-04-01', periodEnd: '2025-04-30' };
    await pushOne(first, measurementFor(kpi, { ...period, actual: 1, target: 2, forecast: 3 }));
    await pushOne(second, measurementFor(kpi, { ...period, actual: 4, target: 5, forecast: 6 }));
    const { Item } = await db.client.send(
      new GetCommand({
        TableName: db.tableName,
        Key: keys.measurement(kpi.id, period.periodStart, period.periodEnd),
      }),
    );
    expect(Item).toMatchObject({ replacedActual: 1, replacedTarget: 2, replacedForecast: 3 });
    expect(Buffer.byteLength(JSON.stringify(Item))).toBeLessThan(1024);
  });
});
