import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../../lib/api-keys/key-format';
import { createApiKey } from '../../../../lib/api-keys/service';
import { keysExpiringBetween, kpisDueForCheck, moveQuietEntry } from '../../../../lib/db/alerts';
import { allShards, INDEX_SHARDS, keys, shardOf } from '../../../../lib/db/keys';
import { updateKpi } from '../../../../lib/kpis/settings';
import { createTestTenant, db, type TestTenant } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

/** The sparse index gsi2 holds exactly what the alert check looks for, and nothing else. */
const itemOf = async (key: { pk: string; sk: string }) =>
  (await db.client.send(new GetCommand({ TableName: db.tableName, Key: key }))).Item ?? {};

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
});

describe('gsi2: KPIs with a cadence, by when the check looks at them', () => {
  it('a KPI enters with a cadence, due at once, made due again by a change of its grace, and leaves with none', async () => {
    const kpi = tenant.kpis[0]!;
    const dueAt = async (now: number) =>
      (await kpisDueForCheck(db, now, 1000)).due.find((found) => found.kpi.id === kpi.id)?.entry;
    expect((await itemOf(keys.kpi(kpi.id))).gsi2pk).toBeUndefined();
    expect(await dueAt(Date.now() + 365 * 86_400_000)).toBeUndefined();
    await updateKpi(db, tenant.tenant.id, kpi.id, { cadence: 'daily' });
    const item = await itemOf(keys.kpi(kpi.id));
    // Due at once: from the KPI's creation, before any run.
    expect(item).toMatchObject(keys.kpiQuietIndex(kpi.id, kpi.createdAt));
    expect(item.gsi2pk).toBe(`QUIET#${shardOf(kpi.id)}`);
    const created = Date.parse(kpi.createdAt);
    expect(await dueAt(created - 1)).toBeUndefined();
    expect(await dueAt(created)).toBe(item.gsi2sk);
    // A check moves it to when it would go quiet; a change of grace makes it due at once again.
    await moveQuietEntry(db, kpi.id, String(item.gsi2sk), created + 86_400_000);
    expect(await dueAt(Date.now())).toBeUndefined();
    await updateKpi(db, tenant.tenant.id, kpi.id, { graceHours: 5 });
    expect(await dueAt(Date.now())).toBe(item.gsi2sk);
    await updateKpi(db, tenant.tenant.id, kpi.id, { cadence: 'none' });
    const gone = await itemOf(keys.kpi(kpi.id));
    expect(gone.gsi2pk).toBeUndefined();
    expect(gone.gsi2sk).toBeUndefined();
    expect(await dueAt(Date.now() + 365 * 86_400_000)).toBeUndefined();
  });

  it('a pass reads at most perShard of each shard, one Query a shard, and says more are due', async () => {
    const many = await createTestTenant({
      kpiTypes: Array.from({ length: INDEX_SHARDS + 1 }, () => 'THEME_KPI' as const),
    });
    for (const kpi of many.kpis) await updateKpi(db, many.tenant.id, kpi.id, { cadence: 'weekly' });
    const probe = instrument(db);
    const { due, more } = await kpisDueForCheck(probe.db, Date.now(), 1);
    expect(due.length).toBeLessThanOrEqual(INDEX_SHARDS);
    expect(more).toBe(true);
    expect(probe.calls.map((call) => call.command)).toEqual(Array(INDEX_SHARDS).fill('QueryCommand'));
    expect(new Set(probe.calls.map((call) => call.input.ExpressionAttributeValues[':pk']))).toEqual(
      new Set(allShards().map((shard) => keys.kpisDueForCheck(shard).gsi2pk)),
    );
  });
});

describe('gsi2: keys by expiry day', () => {
  it('a key with an expiry is in the bucket of its UTC day, sorted by its expiry in one format; one without is not', async () => {
    const expiresAt = '2031-03-04T23:30:00Z';
    const expiring = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'expiring', expiresAt });
    const forever = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'forever' });
    expect(await itemOf(keys.apiKey(hashApiKey(expiring.key)))).toMatchObject({
      gsi2pk: 'KEYEXPIRY#2031-03-04',
      gsi2sk: `2031-03-04T23:30:00.000Z#${expiring.id}`,
    });
    expect((await itemOf(keys.apiKey(hashApiKey(forever.key)))).gsi2pk).toBeUndefined();
    const at = Date.parse(expiresAt);
    const ids = async (from: number, to: number) =>
      (await keysExpiringBetween(db, from, to)).map((found) => found.key.id);
    // The window's ends are inclusive of the expiry, exclusive of anything before `from`.
    expect(await ids(at - 86_400_000, at)).toEqual([expiring.id]);
    expect(await ids(at - 86_400_000, at - 1)).toEqual([]);
    expect(await ids(at + 1, at + 86_400_000)).toEqual([]);
  });

  it('a window that ends at midnight reads the bucket of that day: a key expiring then is in it', async () => {
    const expiresAt = '2031-05-06T00:00:00.000Z';
    const key = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'at midnight', expiresAt });
    const at = Date.parse(expiresAt);
    const found = await keysExpiringBetween(db, at - 2 * 86_400_000, at);
    expect(found.map(({ key: { id } }) => id)).toEqual([key.id]);
  });
});
