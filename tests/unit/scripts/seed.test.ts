import { describe, expect, it } from 'vitest';
import { demoTenants } from '../../../scripts/seed';

describe('the demo data (scripts/seed.ts)', () => {
  it('expects each KPI with a cadence as often as its history has periods', () => {
    const expected = demoTenants.flatMap((tenant) =>
      tenant.kpis.flatMap((kpi) => {
        const history = tenant.history?.[kpi.type];
        return kpi.cadence && kpi.cadence !== 'none' && history
          ? [{ kpi: `${tenant.name}: ${kpi.name}`, cadence: kpi.cadence, periods: history.cadence }]
          : [];
      }),
    );
    // The revenue (monthly periods) and the app rating (monthly, stopped) at least.
    expect(expected.length).toBeGreaterThanOrEqual(2);
    for (const { kpi, cadence, periods } of expected) expect(cadence, kpi).toBe(periods);
  });
});
