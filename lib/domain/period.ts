import * as z from 'zod/mini';
import {
  currentPeriod,
  isWholePeriod,
  KPI_PERIODS,
  type KpiPeriod,
  type PeriodSpan,
  periodContaining,
} from './calendar';

/**
 * A KPI's period and how a measurement's bounds are read against it. The calendar itself (which span
 * holds a day) is ./calendar.ts, which the pages import too.
 */
export {
  currentPeriod,
  isWholePeriod,
  KPI_PERIODS,
  type KpiPeriod,
  nextPeriod,
  type PeriodSpan,
  periodContaining,
  utcDay,
} from './calendar';
export const kpiPeriodSchema = z.enum(KPI_PERIODS, { message: `must be one of ${KPI_PERIODS.join(', ')}` });

/** What a KPI's measurements stand for until someone says otherwise: the interface's default. */
export const DEFAULT_KPI_PERIOD: KpiPeriod = 'month';

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
