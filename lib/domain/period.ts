import * as z from 'zod/mini';

/**
 * A KPI's period: the span one of its measurements stands for. Periods are UTC calendar dates, as
 * the interface's `periodStart` and `periodEnd` are (`YYYY-MM-DD`, no time zone): the current period
 * is the one that holds the current UTC day. A week is ISO's, Monday to Sunday; a quarter starts in
 * January, April, July or October.
 */
export const KPI_PERIODS = ['day', 'week', 'month', 'quarter', 'year'] as const;
export const kpiPeriodSchema = z.enum(KPI_PERIODS, { message: `must be one of ${KPI_PERIODS.join(', ')}` });
export type KpiPeriod = z.output<typeof kpiPeriodSchema>;

/** What a KPI's measurements stand for until someone says otherwise: the interface's default. */
export const DEFAULT_KPI_PERIOD: KpiPeriod = 'month';

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

/** Whether a span is exactly one period of the KPI. */
export const isWholePeriod = (period: KpiPeriod, span: PeriodSpan): boolean => {
  const whole = periodContaining(period, span.periodStart);
  return whole.periodStart === span.periodStart && whole.periodEnd === span.periodEnd;
};

/** The bounds a measurement was given: either, both or none. */
export interface GivenBounds {
  periodStart?: string | undefined;
  periodEnd?: string | undefined;
}

/**
 * The period a measurement stands for, from the bounds it was given and its KPI's period: none given
 * is the current period; one given is the period that holds it; both given must be one whole period.
 * Otherwise `expected` is the period the caller probably meant: the one that holds `periodStart`.
 */
export type ResolvedPeriod = { ok: true; span: PeriodSpan } | { ok: false; expected: PeriodSpan };

export const resolvePeriod = (period: KpiPeriod, given: GivenBounds, nowMs: number): ResolvedPeriod => {
  const { periodStart, periodEnd } = given;
  if (periodStart === undefined && periodEnd === undefined) {
    return { ok: true, span: currentPeriod(period, nowMs) };
  }
  const expected = periodContaining(period, periodStart ?? (periodEnd as string));
  const matches =
    (periodStart === undefined || periodStart === expected.periodStart) &&
    (periodEnd === undefined || periodEnd === expected.periodEnd);
  return matches ? { ok: true, span: expected } : { ok: false, expected };
};

/** The words for a period in a problem: "a week (ISO, Monday to Sunday)". */
export const PERIOD_WORDS: Record<KpiPeriod, string> = {
  day: 'a day',
  week: 'an ISO week (Monday to Sunday)',
  month: 'a calendar month',
  quarter: 'a calendar quarter',
  year: 'a calendar year',
};

/** The message of a refused span: names the KPI's period and the dates expected. */
export const periodMismatchMessage = (period: KpiPeriod, expected: PeriodSpan): string =>
  `must be one whole period of the KPI, whose period is ${period} (${PERIOD_WORDS[period]}): expected periodStart ${expected.periodStart} and periodEnd ${expected.periodEnd}`;

/**
 * The period a history of spans follows, when every span is one whole period of the same kind, else
 * undefined: how a KPI stored before KPIs had a period is read (scripts/admin.ts `infer-kpi-periods`).
 * The shortest kind that fits wins (a span that is both a whole month and a whole quarter cannot
 * happen; a single day is only a day).
 */
export const periodOfHistory = (spans: readonly PeriodSpan[]): KpiPeriod | undefined => {
  if (spans.length === 0) return undefined;
  return KPI_PERIODS.find((period) => spans.every((span) => isWholePeriod(period, span)));
};

/** The period of a KPI right after a span: the one that holds the day after its end. */
export const nextPeriod = (period: KpiPeriod, span: PeriodSpan): PeriodSpan =>
  periodContaining(period, dateOf(dayMs(span.periodEnd) + DAY_MS));

/**
 * Periods per seasonal cycle of a KPI's period: a year of months or quarters, a week of days, a year
 * of weeks; a year has none.
 */
export const SEASON_LENGTH: Record<KpiPeriod, number> = {
  day: 7,
  week: 52,
  month: 12,
  quarter: 4,
  year: 1,
};
