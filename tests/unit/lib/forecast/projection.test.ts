import { describe, expect, it } from 'vitest';
import { chooseModel, MIN_HISTORY, project } from '../../../../lib/forecast/projection';

const seasonal = Array.from({ length: 60 }, (_, t) => 200 + 2 * t + 25 * Math.sin((2 * Math.PI * t) / 12));
/** A deterministic walk with no pattern to find. */
const walk = Array.from({ length: 40 }, (_, t) => 50 + ((t * 7919) % 13) - 6 + (t % 2 === 0 ? 3 : -3));

describe('a projection', () => {
  it('gives no periods and says why with fewer than 6 periods of history', () => {
    expect(MIN_HISTORY).toBe(6);
    expect(project({ values: [1, 2, 3, 4, 5], lastPeriod: '2026-05', seasonLength: 12, periods: 3 })).toEqual(
      {
        method: null,
        basedOn: { count: 5, lastPeriod: '2026-05' },
        periods: [],
        reason: 'A projection needs at least 6 periods of history; this KPI has 5.',
      },
    );
  });

  it('projects from 6 periods, reporting what it was based on and its backtest', () => {
    const projection = project({
      values: [3, 4, 5, 6, 7, 8],
      lastPeriod: '2026-06',
      seasonLength: 12,
      periods: 2,
    });
    expect(projection.basedOn).toEqual({ count: 6, lastPeriod: '2026-06' });
    expect(projection.periods.map((p) => p.step)).toEqual([1, 2]);
    if (projection.method === null) throw new Error('expected a projection');
    expect(projection.backtest.periods).toBe(1);
  });

  it('falls back to naive when no model beats it', () => {
    // A flat history: every model forecasts it exactly, so none is better than naive.
    const flat = Array.from({ length: 30 }, () => 42);
    expect(chooseModel(flat, 12).method).toBe('naive');
    const projection = project({ values: flat, lastPeriod: '2026-06', seasonLength: 12, periods: 2 });
    expect(projection.method).toBe('naive');
    expect(projection.periods.map((p) => [p.p10, p.p50, p.p90])).toEqual([
      [42, 42, 42],
      [42, 42, 42],
    ]);
  });

  it('chooses a seasonal model for a seasonal history, by its own backtest', () => {
    const choice = chooseModel(seasonal, 12);
    expect(['ets', 'ets_log']).toContain(choice.method);
    const naive = choice.candidates.find((c) => c.method === 'naive')?.accuracy;
    expect(choice.accuracy.mae1 + choice.accuracy.mae3).toBeLessThan((naive?.mae1 ?? 0) + (naive?.mae3 ?? 0));
    const projection = project({ values: seasonal, lastPeriod: '2030-12', seasonLength: 12, periods: 3 });
    if (projection.method === null) throw new Error('expected a projection');
    expect(projection.backtest).toEqual({
      mase1: choice.accuracy.mase1,
      mase3: choice.accuracy.mase3,
      coverage80: choice.accuracy.coverage80,
      periods: 12,
    });
  });

  it('is deterministic: the same history gives the same answer', () => {
    for (const values of [seasonal, walk]) {
      const input = { values, lastPeriod: '2030-12', seasonLength: 12, periods: 12 };
      expect(project({ ...input, values: [...values] })).toEqual(project(input));
    }
  });

  it('orders every band: p10 ≤ p50 ≤ p90', () => {
    for (const values of [seasonal, walk, seasonal.map((v) => -v)]) {
      const { periods } = project({ values, lastPeriod: '2030-12', seasonLength: 12, periods: 24 });
      expect(periods).toHaveLength(24);
      for (const p of periods) {
        expect(p.p10).toBeLessThanOrEqual(p.p50);
        expect(p.p50).toBeLessThanOrEqual(p.p90);
        expect(p.p10).toBeLessThan(p.p90);
      }
    }
  });

  it('gives the probability of meeting a target in the KPI direction, only where there is a target', () => {
    const values = seasonal;
    const input = { values, lastPeriod: '2030-12', seasonLength: 12, periods: 3 };
    const median = project(input).periods[2]?.p50 as number;
    const high = median * 1.5;
    const higher = project({
      ...input,
      targets: new Map([[3, { value: high, direction: 'higher_is_better' }]]),
    });
    const lower = project({
      ...input,
      targets: new Map([[3, { value: high, direction: 'lower_is_better' }]]),
    });
    expect(higher.periods[0]).not.toHaveProperty('probability');
    expect(higher.periods[2]?.target).toBe(high);
    expect(higher.periods[2]?.probability).toBeLessThan(0.05);
    expect(lower.periods[2]?.probability).toBeGreaterThan(0.95);
    expect((higher.periods[2]?.probability ?? 0) + (lower.periods[2]?.probability ?? 0)).toBeCloseTo(1, 9);
    const atMedian = project({
      ...input,
      targets: new Map([[3, { value: median, direction: 'lower_is_better' }]]),
    });
    expect(atMedian.periods[2]?.probability).toBeCloseTo(0.5, 6);
  });
});
