import { describe, expect, it } from 'vitest';
import { historyMeasurements } from '../../../scripts/seed-history';

const NOW = Date.parse('2026-11-22T12:00:00Z'); // a Sunday
const kpi = { id: '01a20000-0000-7000-8000-000000000001', type: 'BSC_KPI' as const };

describe('demo history (scripts/seed-history.ts)', () => {
  it('monthly: whole calendar months up to the last complete one, received the morning after', () => {
    const history = historyMeasurements(
      kpi,
      { cadence: 'monthly', periods: 3, start: 100, growth: 0.5 },
      NOW,
    );
    expect(history.map((h) => [h.measurement.periodStart, h.measurement.periodEnd])).toEqual([
      ['2026-08-01', '2026-08-31'],
      ['2026-09-01', '2026-09-30'],
      ['2026-10-01', '2026-10-31'],
    ]);
    expect(new Date(history[2]!.receivedAt).toISOString()).toBe('2026-11-01T06:00:00.000Z');
    expect(history.every((h) => h.receivedAt < NOW)).toBe(true);
  });

  it('never arrives in the future: early on the 1st, last month arrived a minute ago', () => {
    const early = Date.parse('2026-12-01T03:00:00Z');
    const history = historyMeasurements(kpi, { cadence: 'monthly', periods: 1, start: 1, growth: 0 }, early);
    expect(history[0]!.measurement.periodStart).toBe('2026-11-01');
    expect(history[0]!.receivedAt).toBe(early - 60_000);
  });

  it('weekly: Monday to Sunday, the last complete week before the current one', () => {
    const history = historyMeasurements(kpi, { cadence: 'weekly', periods: 2, start: 1, growth: 0 }, NOW);
    expect(history.map((h) => [h.measurement.periodStart, h.measurement.periodEnd])).toEqual([
      ['2026-11-02', '2026-11-08'],
      ['2026-11-09', '2026-11-15'],
    ]);
  });

  it('quarterly across a year boundary, and a history that stopped some periods ago', () => {
    const history = historyMeasurements(
      kpi,
      { cadence: 'quarterly', periods: 2, stoppedPeriodsAgo: 2, start: 1, growth: 0 },
      NOW,
    );
    expect(history.map((h) => [h.measurement.periodStart, h.measurement.periodEnd])).toEqual([
      ['2025-10-01', '2025-12-31'],
      ['2026-01-01', '2026-03-31'],
    ]);
  });

  it('values follow the trend; targets and forecasts only where asked, forecasts for the second half', () => {
    const history = historyMeasurements(
      kpi,
      { cadence: 'monthly', periods: 4, start: 100, growth: 1, withTarget: true, withForecast: true },
      NOW,
    );
    const values = history.map((h) => h.measurement);
    expect(values.every((m) => m.kpiId === kpi.id && m.kpiType === 'BSC_KPI')).toBe(true);
    expect(values[3]!.actual).toBeGreaterThan(values[0]!.actual);
    expect(values.map((m) => m.target)).toEqual([105, 140, 175, 210]);
    expect(values.map((m) => m.forecast === undefined)).toEqual([true, true, false, false]);
    const plain = historyMeasurements(kpi, { cadence: 'monthly', periods: 2, start: 5, growth: 0 }, NOW);
    expect(
      plain.every((h) => h.measurement.target === undefined && h.measurement.forecast === undefined),
    ).toBe(true);
  });

  it('a target ratio puts the target below the trend (the KPI beats it) or far above (it falls behind)', () => {
    const plan = { cadence: 'monthly', periods: 2, start: 100, growth: 0, withTarget: true } as const;
    const targets = (targetRatio: number) =>
      historyMeasurements(kpi, { ...plan, targetRatio }, NOW).map((h) => h.measurement.target);
    expect(targets(0.95)).toEqual([95, 95]);
    expect(targets(1.25)).toEqual([125, 125]);
  });
});
