/**
 * The calendar of KPI periods, without schemas: the spans one measurement of a KPI stands for, as UTC
 * calendar dates (`YYYY-MM-DD`, no time zone), the interface's `periodStart` and `periodEnd`. The
 * current period is the one that holds the current UTC day. A week is ISO's, Monday to Sunday; a
 * quarter starts in January, April, July or October. Free of zod, so that the pages compute the same
 * periods as the service with the same code.
 */
export const KPI_PERIODS = ['day', 'week', 'month', 'quarter', 'year'] as const;
export type KpiPeriod = (typeof KPI_PERIODS)[number];

/** A span of whole days, both ends included, as calendar dates `YYYY-MM-DD`. */
export interface PeriodSpan {
  periodStart: string;
  periodEnd: string;
}

const DAY_MS = 86_400_000;

/** A calendar date at UTC midnight; the caller passes a valid `YYYY-MM-DD`. */
const dayMs = (date: string) => {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(year, month - 1, day);
};

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The UTC calendar day of an instant. */
export const utcDay = (ms: number): string => dateOf(ms);

/** The period of a KPI that holds a calendar day. */
export const periodContaining = (period: KpiPeriod, date: string): PeriodSpan => {
  const ms = dayMs(date);
  const at = new Date(ms);
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  const span = (start: number, end: number) => ({ periodStart: dateOf(start), periodEnd: dateOf(end) });
  switch (period) {
    case 'day':
      return span(ms, ms);
    case 'week': {
      // getUTCDay: 0 is Sunday; ISO weeks start on Monday.
      const monday = ms - ((at.getUTCDay() + 6) % 7) * DAY_MS;
      return span(monday, monday + 6 * DAY_MS);
    }
    case 'month':
      return span(Date.UTC(year, month, 1), Date.UTC(year, month + 1, 0));
    case 'quarter': {
      const first = month - (month % 3);
      return span(Date.UTC(year, first, 1), Date.UTC(year, first + 3, 0));
    }
    case 'year':
      return span(Date.UTC(year, 0, 1), Date.UTC(year, 11, 31));
  }
};

/** The period of a KPI that holds the instant `nowMs`'s UTC day. */
export const currentPeriod = (period: KpiPeriod, nowMs: number): PeriodSpan =>
  periodContaining(period, utcDay(nowMs));

/** The period right after `span`: the one that holds the day after its end. */
export const nextPeriod = (period: KpiPeriod, span: PeriodSpan): PeriodSpan =>
  periodContaining(period, dateOf(dayMs(span.periodEnd) + DAY_MS));

/** Whether a span is exactly one period of the KPI. */
export const isWholePeriod = (period: KpiPeriod, span: PeriodSpan): boolean => {
  const whole = periodContaining(period, span.periodStart);
  return whole.periodStart === span.periodStart && whole.periodEnd === span.periodEnd;
};
