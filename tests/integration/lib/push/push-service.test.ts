import { beforeAll, describe, expect, it } from 'vitest';
import { listMeasurements } from '../../../../lib/db/measurements';
import { getTenant } from '../../../../lib/db/tenants';
import { type PushDeps, pushMeasurements } from '../../../../lib/push/push-service';
import { createTenantCache } from '../../../../lib/tenant-cache';
import { createRawKey, createTestTenant, db, type TestTenant } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';
import { dailyMeasurements } from '../../../support/push';

const measurements = (tenant: TestTenant, count: number, year: number) =>
  dailyMeasurements(tenant.kpis, count, year);

let tenant: TestTenant;
let apiKey: string;
beforeAll(async () => {
  tenant = await createTestTenant();
  apiKey = await createRawKey(tenant.tenant.id);
});

describe('push pipeline cost (issue 4 budgets)', () => {
  const setup = () => {
    const probe = instrument(db);
    const deps: PushDeps = {
      db: probe.db,
      tenants: createTenantCache({ ttlSeconds: 30, load: (id) => getTenant(probe.db, id) }),
      rateLimits: { windowSeconds: 60, perPlan: { free: 60, business: 300, enterprise: 3000 } },
    };
    return { probe, deps };
  };

  it('single push: 3 sequential round trips with a cold tenant cache, 2 when warm', async () => {
    const { probe, deps } = setup();
    await pushMeasurements(deps, { apiKey, readMeasurements: async () => measurements(tenant, 1, 2010) });
    expect(probe.rounds()).toBe(3);
    probe.reset();
    await pushMeasurements(deps, { apiKey, readMeasurements: async () => measurements(tenant, 1, 2011) });
    expect(probe.rounds()).toBe(2);
    expect(probe.calls.map((c) => c.command).sort()).toEqual(
      ['BatchGetCommand', 'BatchWriteCommand', 'UpdateCommand', 'UpdateCommand'].sort(),
    );
  });

  it('batch of 50: still 2 round trips when warm, and 50 write units for 50 measurements', async () => {
    const { probe, deps } = setup();
    await pushMeasurements(deps, { apiKey, readMeasurements: async () => measurements(tenant, 1, 2012) });
    probe.reset();
    const result = await pushMeasurements(deps, {
      apiKey,
      readMeasurements: async () => measurements(tenant, 50, 2013),
    });
    expect(probe.rounds()).toBe(2);
    expect(result.items).toHaveLength(50);
    expect(result.writeUnits).toBe(50);
    // key + 8 distinct KPIs + 50 measurements = 59 keys → 1 BatchGetItem; 50 puts → 2 BatchWriteItem
    // calls of 25; plus the rate counter and lastUsedAt.
    expect(probe.calls.filter((c) => c.command === 'BatchGetCommand')).toHaveLength(1);
    expect(probe.calls.filter((c) => c.command === 'BatchWriteCommand')).toHaveLength(2);
    expect(probe.calls).toHaveLength(5);
  });

  it('a rejected request writes nothing (only the rate counter)', async () => {
    const { probe, deps } = setup();
    const [bad] = measurements(tenant, 1, 2014);
    await expect(
      pushMeasurements(deps, {
        apiKey,
        readMeasurements: async () => [
          { ...bad!, kpiType: bad!.kpiType === 'BSC_KPI' ? 'SWOT_KPI' : 'BSC_KPI' },
        ],
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(
      probe.calls
        .map((c) => c.command)
        .filter((name) => name !== 'GetCommand')
        .sort(),
    ).toEqual(['BatchGetCommand', 'UpdateCommand']);
  });
});

describe('push pipeline: a database failure midway through a batch', () => {
  it('answers with the failure, and retrying the same batch converges to exactly the intended state', async () => {
    const owner = await createTestTenant({ kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] });
    const key = await createRawKey(owner.tenant.id);
    const batch = measurements(owner, 50, 2015);
    // The second BatchWriteItem call (items 25..49) fails as DynamoDB throttling would.
    const failing = instrument(db, (command, nth) => {
      if (command.constructor.name === 'BatchWriteCommand' && nth === 1) {
        throw Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ThrottlingException',
        });
      }
      return undefined;
    });
    const deps = (database = db): PushDeps => ({
      db: database,
      tenants: createTenantCache({ ttlSeconds: 0, load: (id) => getTenant(db, id) }),
      rateLimits: { windowSeconds: 60, perPlan: { free: 60, business: 300, enterprise: 3000 } },
    });
    await expect(
      pushMeasurements(deps(failing.db), { apiKey: key, readMeasurements: async () => batch }),
    ).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    const partial = await Promise.all(owner.kpis.map((kpi) => listMeasurements(db, kpi.id, { limit: 1000 })));
    expect(partial.flatMap((page) => page.items).length).toBeLessThan(50);

    const retried = await pushMeasurements(deps(), { apiKey: key, readMeasurements: async () => batch });
    expect(retried.items).toHaveLength(50);
    const stored = (
      await Promise.all(owner.kpis.map((kpi) => listMeasurements(db, kpi.id, { limit: 1000 })))
    ).flatMap((page) => page.items);
    expect(stored).toHaveLength(50);
    expect(stored.map((m) => m.actual).sort((a, b) => a - b)).toEqual(batch.map((m) => m.actual));
  });
});
