import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../../lib/db/keys';
import { createKpi, KPI_TYPE_FILTER_BOUNDS, listKpis } from '../../../../lib/db/kpis';
import { migrateKpiIndex } from '../../../../lib/kpis/periods';
import { updateKpi } from '../../../../lib/kpis/settings';
import { createTestCycles, createTestTenant, db, type TestTenant } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

const root = resolve(__dirname, '..', '..', '..', '..');
const admin = async (...args: string[]) =>
  JSON.parse(
    (
      await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
        cwd: root,
        env: process.env,
      })
    ).stdout,
  );

/** The KPI lists are key conditions on the tenant's index partition, never a read of the whole tenant. */
describe('the KPI list keys', () => {
  let tenant: TestTenant;
  let cycleId: string;
  let inCycle: string[];
  beforeAll(async () => {
    tenant = await createTestTenant({ kpiTypes: [] });
    const [cycle] = await createTestCycles(tenant.tenant.id, ['Strategy 2027']);
    cycleId = cycle!.id;
    // 30 KPIs outside the cycle, 2 in it, 1 archived in it.
    for (let i = 0; i < 30; i++)
      await createKpi(db, tenant.tenant.id, { type: 'BSC_KPI', name: `Other ${i}` });
    inCycle = [];
    for (const name of ['A', 'B', 'C']) {
      inCycle.push((await createKpi(db, tenant.tenant.id, { type: 'THEME_KPI', name, cycleId })).id);
    }
    await updateKpi(db, tenant.tenant.id, inCycle[2]!, { archived: true });
  });

  it('?cycleId= is one Query that reads only the cycle’s live KPIs', async () => {
    const probe = instrument(db);
    const page = await listKpis(probe.db, tenant.tenant.id, { limit: 100 }, { cycleId });
    expect(page.items.map((k) => k.id)).toEqual(inCycle.slice(0, 2));
    expect(probe.calls).toHaveLength(1);
    const [query] = probe.calls;
    expect(query!.input.KeyConditionExpression).toContain('begins_with');
    expect(query!.input.ExpressionAttributeValues[':prefix']).toBe(`KPI#LIVE#CYCLE#${cycleId}#`);
    expect(query!.input.FilterExpression).toBeUndefined();
    // Two small items: half a read unit, eventually consistent; the 30 others are not read.
    expect(probe.capacity().read).toBeLessThanOrEqual(0.5);
  });

  it('the live list leaves the archived out by its key; ?archived=true reads only the archived', async () => {
    const probe = instrument(db);
    const live = await listKpis(probe.db, tenant.tenant.id, { limit: 100 });
    expect(live.items).toHaveLength(32);
    expect(live.items.map((k) => k.id)).not.toContain(inCycle[2]);
    // Listed by cycle first, then the KPIs without one.
    expect(live.items.slice(0, 2).map((k) => k.id)).toEqual(inCycle.slice(0, 2));
    const archived = await listKpis(probe.db, tenant.tenant.id, { limit: 100 }, { archived: true });
    expect(archived.items.map((k) => k.id)).toEqual([inCycle[2]]);
    expect(probe.calls).toHaveLength(2);
    expect(probe.calls.every((call) => call.input.FilterExpression === undefined)).toBe(true);
  });

  it('?type= reads at most its bound a page and hands back a cursor, however many KPIs the tenant has', async () => {
    // 1 page of at most perCall × maxCalls items, whatever the tenant holds (bound scaled down here).
    const big = await createTestTenant({ kpiTypes: [] });
    for (let i = 0; i < 12; i++) await createKpi(db, big.tenant.id, { type: 'BSC_KPI', name: `K${i}` });
    const probe = instrument(db);
    const page = await listKpis(probe.db, big.tenant.id, { limit: 1 }, { type: 'SWOT_KPI' });
    expect(page.items).toEqual([]);
    expect(probe.calls.length).toBeLessThanOrEqual(KPI_TYPE_FILTER_BOUNDS.maxCalls);
    expect(probe.calls.every((call) => call.input.Limit <= KPI_TYPE_FILTER_BOUNDS.perCall)).toBe(true);
    expect(probe.calls[0]!.input.FilterExpression).toBe('#filter = :filter');
  });
});

describe('migrate-kpi-index', () => {
  it('moves KPIs with the former entry where the lists find them, counts the live ones, and moves nothing again', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const [cycle] = await createTestCycles(tenant.tenant.id, ['Cycle']);
    const plain = await createKpi(db, tenant.tenant.id, { type: 'BSC_KPI', name: 'Plain' });
    const cycled = await createKpi(db, tenant.tenant.id, {
      type: 'BSC_KPI',
      name: 'Cycled',
      cycleId: cycle!.id,
    });
    const archived = await createKpi(db, tenant.tenant.id, { type: 'BSC_KPI', name: 'Archived' });
    await updateKpi(db, tenant.tenant.id, archived.id, { archived: true });
    // As an earlier version stored them: the entry `KPI#<id>`, and no count.
    for (const kpi of [plain, cycled, archived]) {
      await db.client.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: keys.kpi(kpi.id),
          UpdateExpression: 'SET gsi1sk = :old',
          ExpressionAttributeValues: { ':old': `KPI#${kpi.id}` },
        }),
      );
    }
    expect((await listKpis(db, tenant.tenant.id, { limit: 100 })).items).toEqual([]);

    expect(await migrateKpiIndex(db, tenant.tenant.id)).toEqual({
      tenantId: tenant.tenant.id,
      moved: 3,
      kept: 0,
      liveKpis: 2,
    });
    expect((await listKpis(db, tenant.tenant.id, { limit: 100 })).items.map((k) => k.id)).toEqual([
      cycled.id,
      plain.id,
    ]);
    expect(
      (await listKpis(db, tenant.tenant.id, { limit: 100 }, { cycleId: cycle!.id })).items.map((k) => k.id),
    ).toEqual([cycled.id]);
    expect(
      (await listKpis(db, tenant.tenant.id, { limit: 100 }, { archived: true })).items.map((k) => k.id),
    ).toEqual([archived.id]);
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.kpiCount(tenant.tenant.id) }),
    );
    expect(Item?.count).toBe(2);

    // Through the operator CLI: the same tenant again moves nothing.
    expect(await admin('migrate-kpi-index', '--tenant', tenant.tenant.id)).toEqual([
      { tenantId: tenant.tenant.id, moved: 0, kept: 3, liveKpis: 2 },
    ]);
  });
});
