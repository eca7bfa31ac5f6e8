import { describe, expect, it } from 'vitest';
import { normalCdf, probabilityOfMeeting, quantiles, Z90 } from '../../../../lib/forecast/distribution';

describe('the predictive distribution', () => {
  it('has the standard normal distribution function', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(Z90)).toBeCloseTo(0.9, 6);
    expect(normalCdf(-Z90)).toBeCloseTo(0.1, 6);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-3)).toBeCloseTo(0.0013499, 6);
  });

  it('gives p10 ≤ p50 ≤ p90, 1.28 standard deviations either side of the centre', () => {
    expect(quantiles({ mean: 100, sd: 10, log: false })).toEqual({
      p10: 100 - Z90 * 10,
      p50: 100,
      p90: 100 + Z90 * 10,
    });
    const skewed = quantiles({ mean: Math.log(100), sd: 0.1, log: true });
    expect(skewed.p50).toBeCloseTo(100, 9);
    expect(skewed.p10).toBeCloseTo(100 * Math.exp(-Z90 * 0.1), 9);
    expect(skewed.p90).toBeCloseTo(100 * Math.exp(Z90 * 0.1), 9);
    expect(skewed.p90 - skewed.p50).toBeGreaterThan(skewed.p50 - skewed.p10);
  });

  it('gives the chance of meeting a target in the direction of the KPI', () => {
    const p = { mean: 100, sd: 10, log: false };
    expect(probabilityOfMeeting(p, 100 + Z90 * 10, 'higher_is_better')).toBeCloseTo(0.1, 6);
    expect(probabilityOfMeeting(p, 100 + Z90 * 10, 'lower_is_better')).toBeCloseTo(0.9, 6);
    expect(probabilityOfMeeting(p, 100 - Z90 * 10, 'higher_is_better')).toBeCloseTo(0.9, 6);
    expect(probabilityOfMeeting(p, 100 - Z90 * 10, 'lower_is_better')).toBeCloseTo(0.1, 6);
    expect(probabilityOfMeeting(p, 100, 'higher_is_better')).toBeCloseTo(0.5, 7);
  });

  it('reads a target on the scale of a model fitted on logs', () => {
    const p = { mean: Math.log(100), sd: 0.2, log: true };
    expect(probabilityOfMeeting(p, 100, 'higher_is_better')).toBeCloseTo(0.5, 7);
    expect(probabilityOfMeeting(p, 100 * Math.exp(Z90 * 0.2), 'higher_is_better')).toBeCloseTo(0.1, 6);
    // A positive-only value always exceeds a target of zero or less.
    expect(probabilityOfMeeting(p, 0, 'higher_is_better')).toBe(1);
    expect(probabilityOfMeeting(p, -5, 'lower_is_better')).toBe(0);
  });

  it('is certain either way when the forecast has no spread', () => {
    const p = { mean: 5, sd: 0, log: false };
    expect(probabilityOfMeeting(p, 5, 'higher_is_better')).toBe(1);
    expect(probabilityOfMeeting(p, 5, 'lower_is_better')).toBe(1);
    expect(probabilityOfMeeting(p, 5.1, 'higher_is_better')).toBe(0);
    expect(probabilityOfMeeting(p, 4.9, 'lower_is_better')).toBe(0);
    expect(probabilityOfMeeting(p, 4.9, 'higher_is_better')).toBe(1);
  });
});
