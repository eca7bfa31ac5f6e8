import { describe, expect, it } from 'vitest';
import { type Method, MODELS } from '../../../../lib/forecast/models';

const model = (method: Method) =>
  (MODELS.find((m) => m.method === method) as (typeof MODELS)[number]).forecast;

/** Twelve periods a year, a rising trend and a seasonal swing: what ETS is for. */
const seasonal = Array.from({ length: 72 }, (_, t) => 100 + 0.5 * t + 10 * Math.sin((2 * Math.PI * t) / 12));

describe('the candidate models', () => {
  it('naive repeats the last value, spreading as a random walk', () => {
    const forecast = model('naive')([1, 3, 2, 4], 1, 3) ?? [];
    expect(forecast.map((p) => p.mean)).toEqual([4, 4, 4]);
    // Steps 2, −1, 2: σ = √3.
    expect(forecast.map((p) => p.sd)).toEqual([1, 2, 3].map((h) => Math.sqrt(3) * Math.sqrt(h)));
  });

  it('drift extends the line from the first value to the last', () => {
    const forecast = model('drift')([1, 3, 2, 7], 1, 2) ?? [];
    expect(forecast.map((p) => p.mean)).toEqual([9, 11]);
  });

  it('seasonal naive repeats the last cycle, and is naive without seasons', () => {
    const values = [1, 5, 9, 2, 6, 10];
    expect((model('seasonal_naive')(values, 3, 4) ?? []).map((p) => p.mean)).toEqual([2, 6, 10, 2]);
    expect((model('seasonal_naive')(values, 1, 2) ?? []).map((p) => p.mean)).toEqual([10, 10]);
    expect(model('seasonal_naive')(values, 12, 2)).toBeUndefined();
  });

  it('ETS with a damped trend and seasons follows a seasonal series', () => {
    const forecast = model('ets')(seasonal.slice(0, 60), 12, 12) ?? [];
    const actual = seasonal.slice(60);
    const errors = forecast.map((p, i) => Math.abs(p.mean - (actual[i] as number)));
    expect(Math.max(...errors)).toBeLessThan(2);
    expect(forecast.every((p) => p.sd > 0 && !p.log)).toBe(true);
  });

  it('ETS on logs needs positive values and answers on the log scale', () => {
    expect(model('ets_log')([3, 2, 0, 4, 5, 6, 7], 1, 1)).toBeUndefined();
    const forecast = model('ets_log')(seasonal.slice(0, 60), 12, 1) ?? [];
    expect(forecast[0]?.log).toBe(true);
    expect(Math.exp(forecast[0]?.mean ?? 0)).toBeCloseTo(seasonal[60] as number, -1);
  });

  it('fits the same history to the same forecast, every model', () => {
    for (const { forecast } of MODELS) {
      const once = forecast(seasonal, 12, 6);
      const again = forecast([...seasonal], 12, 6);
      expect(once).toBeDefined();
      expect(again).toEqual(once);
    }
  });

  it('widens the band with the horizon', () => {
    for (const { forecast } of MODELS) {
      const sds = (forecast(seasonal, 12, 6) ?? []).map((p) => p.sd);
      expect(sds.every((sd, i) => i === 0 || sd >= (sds[i - 1] as number))).toBe(true);
    }
  });
});
