import { describe, expect, it } from 'vitest';
import { inferPeriod, PERIOD_OF_CADENCE } from '../../../../lib/kpis/periods';

const week = { periodStart: '2026-11-30', periodEnd: '2026-12-06' };
const month = { periodStart: '2026-11-01', periodEnd: '2026-11-30' };

describe('the period of a KPI stored before KPIs had one', () => {
  it('is its history’s when every span is a whole period of one kind, whatever the cadence', () => {
    expect(inferPeriod({ cadence: 'none' }, [week])).toEqual({ period: 'week', from: 'history' });
    expect(inferPeriod({ cadence: 'weekly' }, [month])).toEqual({ period: 'month', from: 'history' });
  });

  it('is its cadence’s without a history of one kind', () => {
    expect(inferPeriod({ cadence: 'daily' }, [week, month])).toEqual({ period: 'day', from: 'cadence' });
    expect(inferPeriod({ cadence: 'weekly' }, [])).toEqual({ period: 'week', from: 'cadence' });
    expect(inferPeriod({ cadence: 'monthly' }, [])).toEqual({ period: 'month', from: 'cadence' });
  });

  it('is a month otherwise', () => {
    expect(inferPeriod({ cadence: 'none' }, [])).toEqual({ period: 'month', from: 'default' });
    expect(
      inferPeriod({ cadence: 'none' }, [{ periodStart: '2026-12-01', periodEnd: '2026-12-07' }]),
    ).toEqual({
      period: 'month',
      from: 'default',
    });
    expect(PERIOD_OF_CADENCE).toEqual({ none: 'month', daily: 'day', weekly: 'week', monthly: 'month' });
  });
});
