import { describe, expect, it } from 'vitest';
import { type ForecastAt, mase, rollingOrigin, seasonalNaiveScale } from '../../../../lib/forecast/accuracy';

describe('MASE and the rolling origin', () => {
  it('scales by the in-sample seasonal-naive error', () => {
    // Differences one season (2) apart: 3-1, 4-2, 7-3, 6-4 → 2, 2, 4, 2 → 2.5.
    expect(seasonalNaiveScale([1, 2, 3, 4, 7, 6], 2)).toBe(2.5);
    // Without seasons, or with a history not longer than one, the lag is one period: 1, 1, 1, 3, 1 → 1.4.
    expect(seasonalNaiveScale([1, 2, 3, 4, 7, 6], 1)).toBeCloseTo(1.4, 12);
    expect(seasonalNaiveScale([1, 2, 3, 4, 7, 6], 12)).toBeCloseTo(1.4, 12);
    expect(seasonalNaiveScale([5], 1)).toBe(0);
  });

  it('is the mean absolute error over the scale, and nothing over zero', () => {
    expect(mase([10, 20, 30], [12, 17, 30], 2)).toBeCloseTo(5 / 3 / 2, 12);
    expect(mase([10], [10], 0)).toBeNull();
    expect(mase([], [], 1)).toBeNull();
  });

  it('forecasts each of the last values 1 and 3 periods ahead, worked by hand', () => {
    const values = [1, 2, 4, 7, 11, 16];
    const origins: number[] = [];
    // Naive, with an interval of ±4.5.
    const naive: ForecastAt = (origin, horizon) => {
      origins.push(origin);
      const last = values[origin - 1] as number;
      return Array.from({ length: horizon }, () => ({ point: last, lower: last - 4.5, upper: last + 4.5 }));
    };
    const accuracy = rollingOrigin(values, 1, 2, naive);
    // The scale: 1, 2, 3 over the values before the window → 2. One ahead: 11 from 7, 16 from 11 →
    // errors 4 and 5, MAE 4.5. Three ahead: 11 from 2, 16 from 4 → 9 and 12, MAE 10.5. Inside ±4.5:
    // only the 4 of the four.
    expect(accuracy).toEqual({
      mase1: 2.25,
      mase3: 5.25,
      coverage80: 0.25,
      mae1: 4.5,
      mae3: 10.5,
      points: 2,
      errors1: [4, 5],
      errors3: [9, 12],
    });
    expect(origins).toEqual([2, 3, 4, 5]);
  });

  it('scores no model that cannot forecast from one of the origins', () => {
    const values = [1, 2, 4, 7, 11, 16];
    const short: ForecastAt = (origin, horizon) =>
      origin < 3 ? undefined : Array.from({ length: horizon }, () => ({ point: 0, lower: 0, upper: 0 }));
    expect(rollingOrigin(values, 1, 2, short)).toBeUndefined();
  });
});
