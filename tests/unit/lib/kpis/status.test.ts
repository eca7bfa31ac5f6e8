import { describe, expect, it } from 'vitest';
import { KPI_CADENCE_DEFAULTS, KPI_TARGET_DEFAULTS, type Kpi } from '../../../../lib/domain/kpi';
import type { Measurement } from '../../../../lib/domain/measurement';
import { kpiStatus, newestWithTarget, statusAgainst, targetOf } from '../../../../lib/kpis/status';

const higher = { direction: 'higher_is_better', tolerance: 0.1 } as const;
const lower = { direction: 'lower_is_better', tolerance: 0.1 } as const;

describe('status against the target, at the boundaries', () => {
  it.each([
    // higher is better, target 100, tolerance 10 %: 100 and above on track, 90 to 100 at risk.
    [higher, 100, 100, 'on_track'],
    [higher, 100.5, 100, 'on_track'],
    [higher, 99.99, 100, 'at_risk'],
    [higher, 90, 100, 'at_risk'],
    [higher, 89.99, 100, 'off_track'],
    // lower is better: 100 and below on track, up to 110 at risk.
    [lower, 100, 100, 'on_track'],
    [lower, 99, 100, 'on_track'],
    [lower, 100.01, 100, 'at_risk'],
    [lower, 110, 100, 'at_risk'],
    [lower, 110.01, 100, 'off_track'],
    // A negative target: the tolerance is of its size.
    [higher, -10, -10, 'on_track'],
    [higher, -11, -10, 'at_risk'],
    [higher, -11.01, -10, 'off_track'],
    // A target of 0 leaves no room to be at risk.
    [higher, 0, 0, 'on_track'],
    [higher, -0.001, 0, 'off_track'],
    [lower, 0.001, 0, 'off_track'],
  ] as const)('%o: actual %d against %d is %s', (rule, actual, target, expected) => {
    expect(statusAgainst(rule, actual, target)).toBe(expected);
  });

  it('takes the KPI’s own tolerance: 0 makes any miss off track, 1 tolerates a miss the size of the target', () => {
    expect(statusAgainst({ ...higher, tolerance: 0 }, 99.99, 100)).toBe('off_track');
    expect(statusAgainst({ ...higher, tolerance: 1 }, 0, 100)).toBe('at_risk');
    expect(statusAgainst({ ...higher, tolerance: 1 }, -0.01, 100)).toBe('off_track');
  });
});

const kpi = (rule: Partial<Kpi> = {}): Kpi => ({
  id: '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f',
  tenantId: 't',
  type: 'BSC_KPI',
  name: 'Revenue',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...KPI_TARGET_DEFAULTS,
  ...KPI_CADENCE_DEFAULTS,
  period: 'month',
  ...rule,
});
const measurement = (actual: number, target: number | null): Measurement => ({
  id: '01937b21-44c0-7a8e-b1d2-3c4d5e6f7a8b',
  kpiId: '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f',
  kpiType: 'BSC_KPI',
  actual,
  target,
  forecast: null,
  periodStart: '2026-09-01',
  periodEnd: '2026-09-30',
  createdAt: '2026-10-01T00:00:00.000Z',
  updatedAt: '2026-10-01T00:00:00.000Z',
  receivedAt: null,
  apiKeyId: null,
  apiKeyPrefix: null,
  integrationId: null,
  integrationName: null,
  replaced: null,
});

describe('a KPI’s status', () => {
  it('names the measurement it comes from', () => {
    expect(kpiStatus(kpi(), measurement(95, 100), true)).toEqual({
      value: 'at_risk',
      measurement: {
        id: '01937b21-44c0-7a8e-b1d2-3c4d5e6f7a8b',
        periodStart: '2026-09-01',
        periodEnd: '2026-09-30',
        actual: 95,
        target: 100,
      },
      targetSource: 'measurement',
    });
  });

  it('measures a measurement without a target against the KPI’s target for its period; its own wins', () => {
    const targets = { '2026-09-01#2026-09-30': 90, '2026-08-01#2026-08-31': 200 };
    expect(kpiStatus(kpi({ targets }), measurement(95, null), true)).toMatchObject({
      value: 'on_track',
      measurement: { actual: 95, target: 90 },
      targetSource: 'kpi',
    });
    expect(kpiStatus(kpi({ targets }), measurement(95, 100), true)).toMatchObject({
      value: 'at_risk',
      measurement: { target: 100 },
      targetSource: 'measurement',
    });
    expect(kpiStatus(kpi({ targets: { '2026-08-01#2026-08-31': 90 } }), measurement(95, null), true)).toEqual(
      {
        value: 'no_target',
        measurement: null,
      },
    );
  });

  it('finds the newest measurement with a target, its own or the KPI’s', () => {
    const older = { ...measurement(1, 5), id: 'older', periodStart: '2026-08-01', periodEnd: '2026-08-31' };
    const newest = measurement(2, null);
    expect(newestWithTarget(kpi(), [newest, older])).toBe(older);
    expect(newestWithTarget(kpi({ targets: { '2026-09-01#2026-09-30': 3 } }), [newest, older])).toBe(newest);
    expect(targetOf(kpi(), newest)).toBeNull();
  });

  it('is no_target with measurements none of which has a target, no_data without any, null when qualitative', () => {
    expect(kpiStatus(kpi(), undefined, true)).toEqual({ value: 'no_target', measurement: null });
    expect(kpiStatus(kpi(), measurement(1, null), true)).toEqual({ value: 'no_target', measurement: null });
    expect(kpiStatus(kpi(), undefined, false)).toEqual({ value: 'no_data', measurement: null });
    expect(kpiStatus(kpi({ qualitative: true }), measurement(95, 100), true)).toBeNull();
  });

  it('follows the KPI’s direction', () => {
    expect(kpiStatus(kpi({ direction: 'lower_is_better' }), measurement(95, 100), true)?.value).toBe(
      'on_track',
    );
  });
});
