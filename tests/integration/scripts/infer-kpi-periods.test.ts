import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../lib/db/keys';
import { createKpi, getKpiOfTenant } from '../../../lib/db/kpis';
import type { Kpi } from '../../../lib/domain/kpi';
import { inferKpiPeriods } from '../../../lib/kpis/periods';
import { createTestTenant, db, putMeasurement, type TestTenant } from '../../support/fixtures';

const root = resolve(__dirname, '..', '..', '..');
const admin = async (...args: string[]) =>
  JSON.parse(
    (
      await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
        cwd: root,
        env: process.env,
      })
    ).stdout,
  );

/** A KPI as items written before KPIs had a period: the attribute absent. */
const withoutPeriod = async (tenantId: string, name: string, cadence: Kpi['cadence'] = 'none') => {
  const kpi = await createKpi(db, tenantId, { type: 'BSC_KPI', name, cadence });
  await db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: keys.kpi(kpi.id),
      UpdateExpression: 'REMOVE #p',
      ExpressionAttributeNames: { '#p': 'period' },
    }),
  );
  return kpi;
};

let tenant: TestTenant;
const kpis: Record<string, Kpi> = {};
beforeAll(async () => {
  tenant = await createTestTenant({ kpiTypes: [] });
  const id = tenant.tenant.id;
  kpis.weeks = await withoutPeriod(id, 'Seven-day spans, Monday to Sunday');
  kpis.months = await withoutPeriod(id, 'Months, expected weekly', 'weekly');
  kpis.mixed = await withoutPeriod(id, 'Mixed spans, expected daily', 'daily');
  kpis.empty = await withoutPeriod(id, 'No history, expected weekly', 'weekly');
  kpis.none = await withoutPeriod(id, 'No history, no cadence');
  kpis.quarterly = await createKpi(db, id, {
    type: 'BSC_KPI',
    name: 'A period of its own',
    period: 'quarter',
  });
  await putMeasurement(kpis.weeks, '2026-11-23', '2026-11-29', 1);
  await putMeasurement(kpis.weeks, '2026-11-30', '2026-12-06', 2);
  await putMeasurement(kpis.months, '2026-10-01', '2026-10-31', 1);
  await putMeasurement(kpis.months, '2026-11-01', '2026-11-30', 1);
  await putMeasurement(kpis.mixed, '2026-11-01', '2026-11-30', 1);
  await putMeasurement(kpis.mixed, '2026-12-01', '2026-12-01', 1);
  await putMeasurement(kpis.quarterly, '2026-11-30', '2026-12-06', 1);
});

describe('existing KPIs: monthly unless their history and cadence say otherwise', () => {
  it('read as monthly before the migration', async () => {
    expect((await getKpiOfTenant(db, tenant.tenant.id, kpis.weeks!.id))?.period).toBe('month');
  });

  it('infer-kpi-periods stores what history, then cadence, then the default say; a stored period stays', {
    timeout: 120_000,
  }, async () => {
    const results = await admin('infer-kpi-periods', '--tenant', tenant.tenant.id);
    const byName = Object.fromEntries(results.map((r: { name: string }) => [r.name, r]));
    expect(byName).toMatchObject({
      [kpis.weeks!.name]: { period: 'week', from: 'history', result: 'stored' },
      [kpis.months!.name]: { period: 'month', from: 'history', result: 'stored' },
      [kpis.mixed!.name]: { period: 'day', from: 'cadence', result: 'stored' },
      [kpis.empty!.name]: { period: 'week', from: 'cadence', result: 'stored' },
      [kpis.none!.name]: { period: 'month', from: 'default', result: 'stored' },
      [kpis.quarterly!.name]: { result: 'kept' },
    });
    const stored = async (kpi: Kpi) => (await getKpiOfTenant(db, tenant.tenant.id, kpi.id))?.period;
    expect(await stored(kpis.weeks!)).toBe('week');
    expect(await stored(kpis.mixed!)).toBe('day');
    expect(await stored(kpis.quarterly!)).toBe('quarter');
    // Again: nothing changes.
    const again = await inferKpiPeriods(db, tenant.tenant.id);
    expect(again.every((r) => r.result === 'kept')).toBe(true);
    expect(await stored(kpis.weeks!)).toBe('week');
  });
});
