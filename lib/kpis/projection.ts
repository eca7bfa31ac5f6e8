import * as z from 'zod/mini';
import type { Database } from '../db/client';
import { getKpiOfTenant } from '../db/kpis';
import { listRecentMeasurements } from '../db/measurements';
import { listStrategicCycles } from '../db/strategic-cycles';
import type { Kpi } from '../domain/kpi';
import type { Measurement } from '../domain/measurement';
import {
  type KpiPeriod,
  nextPeriod,
  type PeriodSpan,
  periodContaining,
  SEASON_LENGTH,
} from '../domain/period';
import type { StrategicCycle } from '../domain/strategic-cycle';
import { MIN_HISTORY, project, type Target } from '../forecast/projection';

/** The most periods a projection covers, asked for or not. */
export const MAX_PROJECTION_PERIODS = 24;
/** How many of a KPI's newest periods a projection is based on: one Query, one page. */
export const PROJECTION_HISTORY = 200;
/** How many of the tenant's cycles are searched for the one the projection runs to. */
export const PROJECTION_CYCLES = 100;

const NUMBER = 'On the KPI’s own scale.';

export const projectedPeriodSchema = z
  .object({
    periodStart: z.string().check(z.describe('First day, `YYYY-MM-DD`.')),
    periodEnd: z.string().check(z.describe('Last day, `YYYY-MM-DD`.')),
    p10: z.number().check(z.describe(`One chance in ten that the value is below this. ${NUMBER}`)),
    p50: z.number().check(z.describe(`The median: as likely above as below. ${NUMBER}`)),
    p90: z.number().check(z.describe(`Nine chances in ten that the value is below this. ${NUMBER}`)),
    target: z.optional(z.number().check(z.describe('The target the period is measured against.'))),
    probability: z.optional(
      z
        .number()
        .check(
          z.describe(
            'The chance, 0 to 1, that the value meets the target in the KPI’s direction: at least the target when higher is better, at most it when lower is better.',
          ),
        ),
    ),
  })
  .check(z.meta({ id: 'ProjectedPeriod', description: 'One future period of a KPI’s projection.' }));

export const projectionSchema = z
  .object({
    kpiId: z.string(),
    period: z.string().check(z.describe('The KPI’s period: what each projected period spans.')),
    method: z
      .nullable(z.enum(['naive', 'drift', 'seasonal_naive', 'ets', 'ets_log']))
      .check(
        z.describe(
          'The model this KPI’s own backtest chose: `naive`, `drift`, `seasonal_naive`, `ets` (damped trend and seasons) or `ets_log` (the same on logarithms); null when there is no projection.',
        ),
      ),
    basedOn: z
      .object({
        count: z.int().check(z.describe('How many consecutive periods of history the projection used.')),
        lastPeriod: z
          .nullable(z.string())
          .check(z.describe('The `periodStart` of the newest of them; null without any.')),
      })
      .check(z.describe('The history the projection is based on.')),
    backtest: z.optional(
      z
        .object({
          mase1: z
            .nullable(z.number())
            .check(
              z.describe(
                'Mean absolute error 1 period ahead over the KPI’s last periods, forecast from the history before each, scaled by the error of repeating the value a season before (below 1 beats that).',
              ),
            ),
          mase3: z.nullable(z.number()).check(z.describe('The same, 3 periods ahead.')),
          coverage80: z
            .nullable(z.number())
            .check(z.describe('The share of those values inside their p10–p90 band (0.8 is honest).')),
          periods: z.int().check(z.describe('How many of the last periods were forecast.')),
        })
        .check(z.describe('How well the chosen model forecast this KPI’s own recent periods.')),
    ),
    horizon: z
      .object({
        until: z
          .enum(['requested', 'cycle', 'year'])
          .check(
            z.describe(
              '`requested`: `?periods=`; `cycle`: the end of the strategic cycle that holds the first projected period; `year`: the end of its calendar year (no such cycle).',
            ),
          ),
        cycleId: z.nullable(z.string()).check(z.describe('The cycle, with `until: cycle`.')),
      })
      .check(z.describe('How far the projection runs, and why.')),
    periods: z
      .array(projectedPeriodSchema)
      .check(z.describe('From the period after the newest measured one; empty when there is no projection.')),
    reason: z.optional(z.string().check(z.describe('Why there is no projection, when there is none.'))),
  })
  .check(
    z.meta({ id: 'KpiProjection', description: 'Where a KPI is heading, with a band and a probability.' }),
  );
export type KpiProjection = z.output<typeof projectionSchema>;

/**
 * The history a projection is fitted on: the newest run of consecutive periods of the KPI, oldest
 * first. A missing period (or a measurement that is not one whole period of the KPI) ends the run,
 * since the models need equally spaced values.
 */
export const historyOf = (period: KpiPeriod, newestFirst: readonly Measurement[]): Measurement[] => {
  const run: Measurement[] = [];
  for (const m of newestFirst) {
    const whole = periodContaining(period, m.periodStart);
    if (whole.periodStart !== m.periodStart || whole.periodEnd !== m.periodEnd) break;
    const newer = run[0];
    if (newer && nextPeriod(period, m).periodStart !== newer.periodStart) break;
    run.unshift(m);
  }
  return run;
};

/** The target in force: the one of the newest measurement that has one; null without one. */
export const standingTarget = (newestFirst: readonly Measurement[]): number | null =>
  newestFirst.find((m) => m.target !== null)?.target ?? null;

/** The period that holds a date, counted in periods from `first` (1 is `first` itself). */
const periodsUntil = (period: KpiPeriod, first: PeriodSpan, lastDay: string): number => {
  let count = 1;
  let span = first;
  while (span.periodEnd < lastDay && count < MAX_PROJECTION_PERIODS) {
    span = nextPeriod(period, span);
    count++;
  }
  return count;
};

/**
 * How many periods a projection covers from `first`: the number asked for; else up to the end of
 * the tenant's strategic cycle that holds `first` (the one ending soonest, if several do); else up
 * to the end of `first`'s calendar year. At most MAX_PROJECTION_PERIODS.
 */
export const horizonOf = (
  period: KpiPeriod,
  first: PeriodSpan,
  cycles: readonly StrategicCycle[],
  requested: number | undefined,
): { count: number; until: 'requested' | 'cycle' | 'year'; cycleId: string | null } => {
  if (requested !== undefined)
    return { count: Math.min(requested, MAX_PROJECTION_PERIODS), until: 'requested', cycleId: null };
  const cycle = cycles
    .filter((c) => c.startDate <= first.periodStart && first.periodStart <= c.endDate)
    .sort((a, b) => a.endDate.localeCompare(b.endDate) || a.id.localeCompare(b.id))[0];
  if (cycle) return { count: periodsUntil(period, first, cycle.endDate), until: 'cycle', cycleId: cycle.id };
  return {
    count: periodsUntil(period, first, `${first.periodStart.slice(0, 4)}-12-31`),
    until: 'year',
    cycleId: null,
  };
};

/**
 * A KPI's projection from its newest measurements (newest first) and the tenant's cycles. Every
 * projected period is measured against the target in force, in the KPI's direction. A qualitative
 * KPI has none: it is a judgement, not a quantity to project.
 */
export const kpiProjection = (
  kpi: Kpi,
  newestFirst: readonly Measurement[],
  cycles: readonly StrategicCycle[],
  requested: number | undefined,
): KpiProjection => {
  const history = historyOf(kpi.period, newestFirst);
  const last = history.at(-1);
  const basedOn = { count: history.length, lastPeriod: last?.periodStart ?? null };
  const first = last ? nextPeriod(kpi.period, last) : undefined;
  const horizon = first
    ? horizonOf(kpi.period, first, cycles, requested)
    : {
        count: 0,
        until: requested === undefined ? ('year' as const) : ('requested' as const),
        cycleId: null,
      };
  const base = {
    kpiId: kpi.id,
    period: kpi.period,
    horizon: { until: horizon.until, cycleId: horizon.cycleId },
  };
  if (kpi.qualitative)
    return {
      ...base,
      method: null,
      basedOn,
      periods: [],
      reason: 'A qualitative KPI has no projection: it is a judgement, not a quantity to project.',
    };
  if (!first || history.length < MIN_HISTORY)
    return {
      ...base,
      method: null,
      basedOn,
      periods: [],
      reason: `A projection needs at least ${MIN_HISTORY} consecutive periods of history; this KPI has ${history.length}.`,
    };
  const targetValue = standingTarget(newestFirst);
  const target: Target | undefined =
    targetValue === null ? undefined : { value: targetValue, direction: kpi.direction };
  const steps = Array.from({ length: horizon.count }, (_, i) => i + 1);
  const projection = project({
    values: history.map((m) => m.actual),
    lastPeriod: basedOn.lastPeriod as string,
    seasonLength: SEASON_LENGTH[kpi.period],
    periods: horizon.count,
    ...(target && { targets: new Map(steps.map((step) => [step, target])) }),
  });
  // `project` answers a projection for any history of MIN_HISTORY or more.
  if (projection.method === null) throw new Error('unreachable: a long enough history has a projection');
  let span = first;
  const periods = projection.periods.map(({ step, ...values }) => {
    if (step > 1) span = nextPeriod(kpi.period, span);
    return { periodStart: span.periodStart, periodEnd: span.periodEnd, ...values };
  });
  return { ...base, method: projection.method, basedOn, backtest: projection.backtest, periods };
};

/**
 * Reads what a projection needs, in one round trip: the KPI (GetItem), its PROJECTION_HISTORY newest
 * measurements (one Query) and the tenant's first PROJECTION_CYCLES cycles (one Query of the
 * tenant's partition). Another tenant's KPI is undefined, like a missing one.
 */
export const readKpiProjection = async (
  db: Database,
  tenantId: string,
  kpiId: string,
  requested: number | undefined,
): Promise<KpiProjection | undefined> => {
  const [kpi, recent, cycles] = await Promise.all([
    getKpiOfTenant(db, tenantId, kpiId),
    listRecentMeasurements(db, kpiId, PROJECTION_HISTORY),
    listStrategicCycles(db, tenantId, { limit: PROJECTION_CYCLES }),
  ]);
  if (!kpi) return undefined;
  return kpiProjection(kpi, recent, cycles.items, requested);
};
