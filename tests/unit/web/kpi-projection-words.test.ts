import { describe, expect, it } from 'vitest';
import { backtestInWords, chanceInWords } from '../../../web/kpis/format';

describe('a chance in words', () => {
  it('is the nearest simple fraction', () => {
    expect(chanceInWords(0.75)).toBe('about 3 in 4');
    expect(chanceInWords(0.5)).toBe('about 1 in 2');
    expect(chanceInWords(0.34)).toBe('about 1 in 3');
    expect(chanceInWords(0.2)).toBe('about 1 in 5');
    expect(chanceInWords(0.9)).toBe('about 9 in 10');
    expect(chanceInWords(0.66)).toBe('about 2 in 3');
  });

  it('says the ends as bounds', () => {
    expect(chanceInWords(0.01)).toBe('less than 1 in 20');
    expect(chanceInWords(0.05)).toBe('about 1 in 10');
    expect(chanceInWords(0.99)).toBe('more than 19 in 20');
  });
});

describe('the backtest in words', () => {
  const projection = {
    kpiId: 'k',
    period: 'month',
    method: 'ets' as const,
    basedOn: { count: 36, lastPeriod: '2026-09-01' },
    backtest: { mase1: 0.62, mase3: 0.7, coverage80: 0.83, periods: 12 },
    horizon: { until: 'year' as const, cycleId: null },
    periods: [],
  };
  it('names the method and says the figures plainly', () => {
    expect(backtestInWords(projection)).toBe(
      'Method: exponential smoothing with a damped trend and seasons (ETS), chosen because it forecast this KPI’s own last 12 periods best. Its error one period ahead was 0.62 times that of repeating last season’s value, three periods ahead 0.7 times (below 1 is better). 83 % of those values fell inside the band, which aims at 80 %.',
    );
  });

  it('is empty without a projection', () => {
    expect(backtestInWords({ ...projection, method: null, backtest: undefined })).toBe('');
  });
});
