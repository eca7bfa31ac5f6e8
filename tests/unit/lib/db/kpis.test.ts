import { describe, expect, it } from 'vitest';
import { keys } from '../../../../lib/db/keys';
import { kpis } from '../../../../lib/db/kpis';

const K = '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f';
const T = '01936f0e-8a10-7f0b-8c55-1d2e3f405162';

/** The KPI's item: in the tenant's index always, in the cadence index only while it has a cadence. */
describe('a KPI item', () => {
  const kpi = (cadence: 'none' | 'daily') =>
    kpis.fromItem({
      ...keys.kpi(K),
      ...keys.kpiIndex(T, K),
      type: 'KPI',
      id: K,
      tenantId: T,
      name: 'Revenue',
      kpiType: 'BSC_KPI',
      cadence,
      createdAt: '2026-11-27T10:00:00.000Z',
    });

  it('is in the cadence index with a cadence, and out of it without', () => {
    const daily = kpis.toItem(kpi('daily'));
    expect(daily).toMatchObject({ ...keys.kpiCadenceIndex(T, K), ...keys.kpiIndex(T, K) });
    const none = kpis.toItem(kpi('none'));
    expect(none).toMatchObject(keys.kpiIndex(T, K));
    expect(none).not.toHaveProperty('gsi2pk');
  });
});
