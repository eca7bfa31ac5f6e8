/**
 * Values and periods as the KPI page writes them, alike in the list, the detail and the chart. Periods
 * are UTC calendar dates.
 */
import { utcDate, utcDay } from '../shared/format';
import type { Detail, Projection } from './state';

const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
/** "Sep 2025": a month with its whole year, never "Sep 25", which reads as a day as well. */
export const utcMonth = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

export const formatValue = (value: number | null, unit?: string) =>
  value === null ? '—' : `${numberFormat.format(value)}${unit ? ` ${unit}` : ''}`;

/**
 * A period as people say it, as short as it stays unambiguous: one day ("Nov 16, 2026"), a calendar
 * month ("Nov 2026"), whole months ("Jul – Sep 2026"), or a range that names a month or a year once
 * ("Nov 16 – 22, 2026"). The list and the detail use it alike; dates are UTC calendar dates.
 */
export const formatPeriod = (start: string, end: string) => {
  const first = utcDate(start);
  const last = utcDate(end);
  if (start === end) return utcDay.format(first);
  const next = utcDate(end);
  next.setUTCDate(next.getUTCDate() + 1);
  if (first.getUTCDate() === 1 && next.getUTCDate() === 1) {
    const lastMonth = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), 1));
    return lastMonth.getTime() === first.getTime()
      ? utcMonth.format(first)
      : utcMonth.formatRange(first, lastMonth);
  }
  return utcDay.formatRange(first, last);
};

/**
 * A chance in words, as people weigh odds: "about 3 in 4" (the nearest fraction with 2 to 5 or 10 as
 * its denominator, the simpler on a tie), "less than 1 in 20" and "more than 19 in 20" at the ends.
 */
export const chanceInWords = (probability: number) => {
  if (probability < 0.05) return 'less than 1 in 20';
  if (probability > 0.95) return 'more than 19 in 20';
  let best = { n: 1, d: 2, error: Math.abs(probability - 0.5) };
  for (const d of [2, 3, 4, 5, 10])
    for (let n = 1; n < d; n++) {
      const error = Math.abs(probability - n / d);
      if (error < best.error - 1e-9) best = { n, d, error };
    }
  return `about ${best.n} in ${best.d}`;
};

/** The models by name, as the detail says them. */
export const METHOD_WORDS: Record<NonNullable<Projection['method']>, string> = {
  naive: 'the last value carried forward',
  drift: 'the trend of the whole history (drift)',
  seasonal_naive: 'last season’s values repeated',
  ets: 'exponential smoothing with a damped trend and seasons (ETS)',
  ets_log: 'exponential smoothing of the logarithms, with a damped trend and seasons (ETS)',
};

/** The backtest in plain words, with the method; empty without a projection. */
export const backtestInWords = (projection: Projection) => {
  const { backtest, method } = projection;
  if (method === null || !backtest) return '';
  const times = (mase: number | null) =>
    mase === null ? 'not measurable (a flat history)' : `${numberFormat.format(mase)} times`;
  const coverage =
    backtest.coverage80 === null
      ? ''
      : ` ${Math.round(backtest.coverage80 * 100)} % of those values fell inside the band, which aims at 80 %.`;
  return (
    `Method: ${METHOD_WORDS[method]}, chosen because it forecast this KPI’s own last ${backtest.periods} periods best. ` +
    `Its error one period ahead was ${times(backtest.mase1)} that of repeating last season’s value, three periods ahead ${times(backtest.mase3)} (below 1 is better).${coverage}`
  );
};

/** The period under the chart's cursor, as text: the caption, and the chart slider's value. */
export const readout = (detail: Detail, index: number | null) => {
  const point = index === null ? undefined : detail.measurements[index];
  const unit = detail.kpi.unit;
  const projected =
    index === null ? undefined : detail.projection?.periods[index - detail.measurements.length];
  if (!point && projected)
    return (
      `${formatPeriod(projected.periodStart, projected.periodEnd)} (projected): median ${formatValue(projected.p50, unit)}, ` +
      `80 % between ${formatValue(projected.p10, unit)} and ${formatValue(projected.p90, unit)}` +
      (projected.target !== undefined && projected.probability !== undefined
        ? `, target ${formatValue(projected.target, unit)}, chance ${chanceInWords(projected.probability)}`
        : '')
    );
  return point
    ? `${formatPeriod(point.periodStart, point.periodEnd)}: actual ${formatValue(point.actual, unit)}, ` +
        `target ${formatValue(point.target, unit)}, forecast ${formatValue(point.forecast, unit)}`
    : '';
};
