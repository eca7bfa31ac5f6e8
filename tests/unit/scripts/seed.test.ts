import { describe, expect, it } from 'vitest';
import { periodOfHistory } from '../../../lib/domain/period';
import { demoTenants, HISTORY_PERIOD } from '../../../scripts/seed';

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

  it('gives each KPI with a history the period its history’s measurements are whole ones of', () => {
    expect(HISTORY_PERIOD).toEqual({ weekly: 'week', monthly: 'month', quarterly: 'quarter' });
    const weekly = [
      { periodStart: '2026-11-23', periodEnd: '2026-11-29' },
      { periodStart: '2026-11-30', periodEnd: '2026-12-06' },
    ];
    expect(periodOfHistory(weekly)).toBe(HISTORY_PERIOD.weekly);
  });

  it('measures the support backlog as lower is better', () => {
    const acme = demoTenants.find((tenant) => tenant.name.startsWith('Acme'));
    expect(acme?.kpis.find((kpi) => kpi.type === 'ASIS_KPI')).toMatchObject({
      name: 'Support ticket backlog',
      direction: 'lower_is_better',
    });
  });
});
