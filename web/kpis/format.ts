/**
 * Values and periods as the KPI page writes them, alike in the list, the detail and the chart. Periods
 * are UTC calendar dates.
 */
import { utcDate, utcDay } from '../shared/format';
import type { Detail } from './state';

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

/** The period under the chart's cursor, as text: the caption, and the chart slider's value. */
export const readout = (detail: Detail, index: number | null) => {
  const point = index === null ? undefined : detail.measurements[index];
  const unit = detail.kpi.unit;
  return point
    ? `${formatPeriod(point.periodStart, point.periodEnd)}: actual ${formatValue(point.actual, unit)}, ` +
        `target ${formatValue(point.target, unit)}, forecast ${formatValue(point.forecast, unit)}`
    : '';
};
