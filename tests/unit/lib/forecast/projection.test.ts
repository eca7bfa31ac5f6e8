import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Accuracy } from '../../../../lib/forecast/accuracy';
import {
  CRITICAL_5,
  chooseModel,
  clearlyBetter,
  MIN_HISTORY,
  project,
} from '../../../../lib/forecast/projection';

const seasonal = Array.from({ length: 60 }, (_, t) => 200 + 2 * t + 25 * Math.sin((2 * Math.PI * t) / 12));
/** A deterministic walk with no pattern to find. */
const walk = Array.from({ length: 40 }, (_, t) => 50 + ((t * 7919) % 13) - 6 + (t % 2 === 0 ? 3 : -3));

/** A backtest with these absolute errors, 1 and 3 periods ahead, at each value forecast. */
const backtest = (errors1: number[], errors3: number[]): Accuracy => {
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return {
    mase1: null,
    mase3: null,
    coverage80: null,
    mae1: mean(errors1),
    mae3: mean(errors3),
    points: errors1.length,
    errors1,
    errors3,
  };
};

describe('clearly better: a paired test at 5 % on the backtest errors', () => {
  it('is the one-sided 5 % quantile of the normal distribution', () => {
    expect(CRITICAL_5).toBeCloseTo(1.6449, 4);
  });

  it('holds when the mean gain exceeds 1.645 standard errors, worked by hand', () => {
    const baseline = backtest([3, 3, 3], [3, 3, 3]);
    // Gains 2, 0, 1 (1 and 3 ahead together): mean 1, variance (1 + 1 + 0) / 2 = 1, standard error
    // 1/√3 = 0.577; 1 / 0.577 = 1.73.
    expect(clearlyBetter(backtest([2, 3, 2], [2, 3, 3]), baseline)).toBe(true);
    // Gains 2, 0, 0.8: mean 0.933, variance 1.013, standard error 0.581; 0.933 / 0.581 = 1.61, short
    // of 1.645 though better on average (with the variance over n rather than n − 1 it would be 1.97).
    expect(clearlyBetter(backtest([2, 3, 2.6], [2, 3, 2.6]), baseline)).toBe(false);
  });

  it('adds the errors 1 and 3 periods ahead of each value', () => {
    const baseline = backtest([3, 3, 3], [5, 4, 5]);
    // The same errors 1 ahead, gains 4, 2, 4 three ahead.
    expect(clearlyBetter(backtest([3, 3, 3], [1, 2, 1]), baseline)).toBe(true);
    // Gains 1 ahead are lost 3 ahead: 2 − 2, 1 − 1, 2 − 2.
    expect(clearlyBetter(backtest([1, 2, 1], [7, 5, 7]), baseline)).toBe(false);
    // Gains only 1 ahead: 2, 1, 2.
    expect(clearlyBetter(backtest([1, 2, 1], [5, 4, 5]), baseline)).toBe(true);
  });

  it('holds for a gain that never varies, and never for no gain or a loss', () => {
    const baseline = backtest([3, 4, 5], [6, 7, 8]);
    expect(clearlyBetter(backtest([2, 3, 4], [6, 7, 8]), baseline)).toBe(true);
    expect(clearlyBetter(baseline, baseline)).toBe(false);
    expect(clearlyBetter(backtest([4, 5, 6], [6, 7, 8]), baseline)).toBe(false);
    expect(clearlyBetter(baseline, backtest([2, 3, 4], [6, 7, 8]))).toBe(false);
  });

  it('never holds on one value or none: there is no spread to judge by', () => {
    expect(clearlyBetter(backtest([0], [0]), backtest([9], [9]))).toBe(false);
    expect(clearlyBetter(backtest([], []), backtest([], []))).toBe(false);
  });
});

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

  it('keeps naive when another model is better on average but not clearly (the Nile to 1961)', () => {
    const { series } = JSON.parse(
      readFileSync(resolve(__dirname, '../../../../bench/forecast/series.json'), 'utf8'),
    ) as { series: { name: string; values: number[] }[] };
    const nile = (series.find((s) => s.name === 'Nile') as { values: number[] }).values.slice(0, 91);
    const choice = chooseModel(nile, 1);
    const error = (method: string) => {
      const accuracy = choice.candidates.find((c) => c.method === method)?.accuracy as Accuracy;
      return accuracy.mae1 + accuracy.mae3;
    };
    expect(error('ets')).toBeLessThan(0.85 * error('naive'));
    expect(choice.method).toBe('naive');
    expect(choice.accuracy).toEqual(choice.candidates[0]?.accuracy);
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
