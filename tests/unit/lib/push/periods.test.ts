import { describe, expect, it } from 'vitest';
import type { MeasurementInput } from '../../../../lib/push/measurement-schema';
import { measurementInputSchema } from '../../../../lib/push/measurement-schema';
import { placeAllInPeriods, placeInPeriod } from '../../../../lib/push/store';

const KPI = '0193e1a2-3b4c-7d5e-8f60-718293a4b5c6';
const OTHER = '0193e1a2-3b4c-7d5e-8f60-718293a4b5c7';
const NOW = Date.parse('2026-12-02T00:45:00Z');
const input = (fields: Record<string, unknown>): MeasurementInput =>
  measurementInputSchema.parse({ kpiId: KPI, kpiType: 'BSC_KPI', actual: 1, ...fields });

describe('the schema says which bounds it filled', () => {
  it('fills both, either or none, with the month', () => {
    expect(input({}).defaulted).toBe('both');
    expect(input({ periodStart: '2026-11-30' })).toMatchObject({
      defaulted: 'periodEnd',
      periodEnd: '2026-11-30',
    });
    expect(input({ periodEnd: '2026-12-06' })).toMatchObject({
      defaulted: 'periodStart',
      periodStart: '2026-12-01',
    });
    expect(input({ periodStart: '2026-12-01', periodEnd: '2026-12-31' }).defaulted).toBeUndefined();
  });
});

describe('placing a measurement in its KPI’s period', () => {
  it('bounds left out are the KPI’s; the flag is not stored', () => {
    expect(placeInPeriod({ period: 'week' }, input({}), NOW)).toEqual({
      ok: true,
      measurement: expect.not.objectContaining({ defaulted: expect.anything() }),
    });
    expect(placeInPeriod({ period: 'week' }, input({}), NOW)).toMatchObject({
      measurement: { periodStart: '2026-11-30', periodEnd: '2026-12-06' },
    });
    expect(placeInPeriod({ period: 'week' }, input({ periodEnd: '2026-12-06' }), NOW)).toMatchObject({
      measurement: { periodStart: '2026-11-30', periodEnd: '2026-12-06' },
    });
    expect(placeInPeriod({ period: 'month' }, input({}), NOW)).toMatchObject({
      measurement: { periodStart: '2026-12-01', periodEnd: '2026-12-31' },
    });
  });

  it('names the field that is off: the start, or the end when the start is right', () => {
    expect(
      placeInPeriod({ period: 'week' }, input({ periodStart: '2026-12-01', periodEnd: '2026-12-31' }), NOW),
    ).toMatchObject({
      ok: false,
      field: 'periodStart',
      period: 'week',
      expected: { periodStart: '2026-11-30', periodEnd: '2026-12-06' },
    });
    expect(
      placeInPeriod({ period: 'week' }, input({ periodStart: '2026-11-30', periodEnd: '2026-12-31' }), NOW),
    ).toMatchObject({
      ok: false,
      field: 'periodEnd',
    });
    expect(placeInPeriod({ period: 'month' }, input({ periodEnd: '2026-12-30' }), NOW)).toMatchObject({
      ok: false,
      field: 'periodEnd',
    });
  });
});

describe('placing a set', () => {
  const kpis = new Map([
    [KPI, { period: 'week' as const }],
    [OTHER, { period: 'month' as const }],
  ]);

  it('answers every measurement placed, in order', () => {
    const placed = placeAllInPeriods([input({}), { ...input({}), kpiId: OTHER }], kpis, NOW);
    expect(placed.map((m) => [m.periodStart, m.periodEnd])).toEqual([
      ['2026-11-30', '2026-12-06'],
      ['2026-12-01', '2026-12-31'],
    ]);
  });

  it('refuses the set naming each element that is not a whole period, with its expected dates', () => {
    const refuse = () =>
      placeAllInPeriods(
        [
          { ...input({ periodStart: '2026-12-01', periodEnd: '2026-12-31' }), kpiId: OTHER },
          input({ periodStart: '2026-12-01', periodEnd: '2026-12-31' }),
        ],
        kpis,
        NOW,
        (i) => `measurements[${i}]`,
      );
    expect(refuse).toThrowError(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        errors: [{ path: 'measurements[1].periodStart', message: expect.stringContaining('period is week') }],
        extensions: {
          expectedPeriods: [
            {
              path: 'measurements[1]',
              kpiId: KPI,
              period: 'week',
              periodStart: '2026-11-30',
              periodEnd: '2026-12-06',
            },
          ],
        },
      }),
    );
  });

  it('refuses two that land on the same period, naming both; a single push names the field alone', () => {
    expect(() =>
      placeAllInPeriods(
        [input({}), input({ periodStart: '2026-11-30' })],
        kpis,
        NOW,
        (i) => `measurements[${i}]`,
      ),
    ).toThrowError(
      expect.objectContaining({
        errors: [
          { path: 'measurements[0]', message: 'same kpiId and period as measurements[1]' },
          { path: 'measurements[1]', message: 'same kpiId and period as measurements[0]' },
        ],
      }),
    );
    expect(() => placeAllInPeriods([input({ periodEnd: '2026-12-07' })], kpis, NOW)).toThrowError(
      expect.objectContaining({
        errors: [{ path: 'periodEnd', message: expect.any(String) }],
        extensions: { expectedPeriods: [expect.objectContaining({ path: '(body)' })] },
      }),
    );
  });
});
