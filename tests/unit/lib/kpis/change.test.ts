import { describe, expect, it } from 'vitest';
import { changeSinceLastPeriod } from '../../../../lib/kpis/change';

describe('change since the last period', () => {
  it('gives the previous value and the absolute and relative difference', () => {
    expect(changeSinceLastPeriod(125, 100)).toEqual({ previous: 100, absolute: 25, relative: 0.25 });
    expect(changeSinceLastPeriod(80, 100)).toEqual({ previous: 100, absolute: -20, relative: -0.2 });
    expect(changeSinceLastPeriod(7, 7)).toEqual({ previous: 7, absolute: 0, relative: 0 });
  });

  it('measures the relative difference against the size of a negative previous value', () => {
    // From −10 to −5 is a rise of 5, half the previous value's size.
    expect(changeSinceLastPeriod(-5, -10)).toEqual({ previous: -10, absolute: 5, relative: 0.5 });
    expect(changeSinceLastPeriod(-15, -10)).toEqual({ previous: -10, absolute: -5, relative: -0.5 });
  });

  it('has no ratio from zero, and no change without a previous period', () => {
    expect(changeSinceLastPeriod(3, 0)).toEqual({ previous: 0, absolute: 3, relative: null });
    expect(changeSinceLastPeriod(3, undefined)).toBeNull();
  });
});
