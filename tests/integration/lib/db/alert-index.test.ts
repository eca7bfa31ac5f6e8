import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../../lib/api-keys/key-format';
import { createApiKey } from '../../../../lib/api-keys/service';
import { keysExpiringBetween, kpisWithCadence } from '../../../../lib/db/alerts';
import { keys } from '../../../../lib/db/keys';
import { updateKpi } from '../../../../lib/kpis/settings';
import { createTestTenant, db, type TestTenant } from '../../../support/fixtures';

/** The sparse index gsi2 holds exactly what the alert check looks for, and nothing else. */
const itemOf = async (key: { pk: string; sk: string }) =>
  (await db.client.send(new GetCommand({ TableName: db.tableName, Key: key }))).Item ?? {};

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
});

describe('gsi2: KPIs with a cadence', () => {
  it('a KPI enters with a cadence, stays while it changes, and leaves with none', async () => {
    const kpi = tenant.kpis[0]!;
    const listed = async () => (await kpisWithCadence(db)).some((found) => found.kpi.id === kpi.id);
    expect((await itemOf(keys.kpi(kpi.id))).gsi2pk).toBeUndefined();
    expect(await listed()).toBe(false);
    await updateKpi(db, tenant.tenant.id, kpi.id, { cadence: 'daily' });
    expect(await itemOf(keys.kpi(kpi.id))).toMatchObject(keys.kpiCadenceIndex(tenant.tenant.id, kpi.id));
    expect(await listed()).toBe(true);
    await updateKpi(db, tenant.tenant.id, kpi.id, { graceHours: 5 });
    expect(await listed()).toBe(true);
    await updateKpi(db, tenant.tenant.id, kpi.id, { cadence: 'none' });
    const item = await itemOf(keys.kpi(kpi.id));
    expect(item.gsi2pk).toBeUndefined();
    expect(item.gsi2sk).toBeUndefined();
    expect(await listed()).toBe(false);
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
