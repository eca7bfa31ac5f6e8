import { describe, expect, it } from 'vitest';
import {
  type ForecastAt,
  type Interval,
  rollingOrigin,
  seasonalNaiveScale,
} from '../../../../lib/forecast/accuracy';

/** A forecast that records its origins and answers `at(origin)` for every step. */
const recording = (at: (origin: number) => Interval) => {
  const origins: number[] = [];
  const forecastAt: ForecastAt = (origin, horizon) => {
    origins.push(origin);
    return Array.from({ length: horizon }, () => at(origin));
  };
  return { origins, forecastAt };
};

const flat: Interval = { point: 0, lower: -1, upper: 1 };

describe('the scale at the edges', () => {
  it('lags one period without seasons, a season length of 0 as of 1', () => {
    // 1, 1, 1, 3, 1 → 1.4.
    expect(seasonalNaiveScale([1, 2, 3, 4, 7, 6], 0)).toBeCloseTo(1.4, 12);
  });

  it('lags one period when the history is exactly one season long', () => {
    expect(seasonalNaiveScale([1, 2, 3, 4, 7, 6], 6)).toBeCloseTo(1.4, 12);
    // One value longer than a season: the differences one season apart, 6 − 1 → 5.
    expect(seasonalNaiveScale([1, 2, 3, 4, 7, 6], 5)).toBe(5);
  });
});

describe('the rolling origin at the edges', () => {
  it('scores nothing, without dividing by zero, when no value can be forecast', () => {
    const { origins, forecastAt } = recording(() => flat);
    expect(rollingOrigin([5], 1, 1, forecastAt)).toEqual({
      mase1: null,
      mase3: null,
      coverage80: null,
      mae1: 0,
      mae3: 0,
      points: 0,
      errors1: [],
      errors3: [],
    });
    expect(origins).toEqual([]);
  });

  it('never forecasts from before the first value', () => {
    // A window of the last 4 of 5 values: one ahead, each from the value before; three ahead only
    // the last two, from origins 1 and 2 (the first two would need origins −1 and 0).
    const { origins, forecastAt } = recording(() => flat);
    const accuracy = rollingOrigin([1, 2, 4, 7, 11], 1, 4, forecastAt);
    expect(origins).toEqual([1, 2, 3, 4]);
    expect(accuracy?.errors1).toEqual([2, 4, 7, 11]);
    expect(accuracy?.errors3).toEqual([7, 11]);
  });

  it('skips an origin that forecasts no value of the window', () => {
    // A window of the last value: 3 ahead from origin 3, 1 ahead from origin 5; origin 4 reaches it
    // neither way.
    const { origins, forecastAt } = recording(() => flat);
    const accuracy = rollingOrigin([1, 2, 4, 7, 11, 16], 1, 1, forecastAt);
    expect(origins).toEqual([3, 5]);
    expect(accuracy?.errors1).toEqual([16]);
    expect(accuracy?.errors3).toEqual([16]);
  });

  it('counts a value on either bound of the interval as inside it, and one below as outside', () => {
    const values = [0, 0, 0, 10];
    // The last value, 10: 3 ahead from origin 1, 1 ahead from origin 3.
    const onLower = recording((origin) =>
      origin === 1 ? { point: 10, lower: 10, upper: 20 } : { point: 10, lower: 11, upper: 12 },
    );
    expect(rollingOrigin(values, 1, 1, onLower.forecastAt)?.coverage80).toBe(0.5);
    const onUpper = recording((origin) =>
      origin === 1 ? { point: 10, lower: 0, upper: 10 } : { point: 10, lower: 2, upper: 9 },
    );
    expect(rollingOrigin(values, 1, 1, onUpper.forecastAt)?.coverage80).toBe(0.5);
  });
});
