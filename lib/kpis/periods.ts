import type { Database } from '../db/client';
import { listEveryKpi, moveKpiIndexEntry, setKpiCount, storeKpiPeriodIfAbsent } from '../db/kpis';
import { listRecentMeasurements } from '../db/measurements';
import type { Kpi, KpiCadence } from '../domain/kpi';
import { DEFAULT_KPI_PERIOD, type KpiPeriod, type PeriodSpan, periodOfHistory } from '../domain/period';

/**
 * The period of a KPI stored before KPIs had one. Such a KPI reads as monthly (the interface's
 * default, the stored default of its entity) until the operator runs `infer-kpi-periods`, which
 * stores what its data say:
 * 1. its history, when every one of its newest measurements is one whole period of the same kind
 *    (seven-day spans from Monday to Sunday: `week`): the job that pushes them keeps sending those;
 * 2. else its expected cadence: `daily` is a day, `weekly` a week;
 * 3. else a month.
 * A history of mixed spans falls to the cadence: the KPI's measurements that are not whole periods
 * stay readable, and a new push must then be one.
 */
export const PERIOD_OF_CADENCE: Record<KpiCadence, KpiPeriod> = {
  none: DEFAULT_KPI_PERIOD,
  daily: 'day',
  weekly: 'week',
  monthly: 'month',
};

/** How many of a KPI's newest measurements its history is judged on. */
export const HISTORY_PERIODS = 100;

export type InferredFrom = 'history' | 'cadence' | 'default';

export const inferPeriod = (
  kpi: Pick<Kpi, 'cadence'>,
  history: readonly PeriodSpan[],
): { period: KpiPeriod; from: InferredFrom } => {
  const fromHistory = periodOfHistory(history);
  if (fromHistory) return { period: fromHistory, from: 'history' };
  if (kpi.cadence !== 'none') return { period: PERIOD_OF_CADENCE[kpi.cadence], from: 'cadence' };
  return { period: DEFAULT_KPI_PERIOD, from: 'default' };
};

export interface InferredPeriod {
  kpiId: string;
  name: string;
  period: KpiPeriod;
  from: InferredFrom;
  /** `stored`: written now; `kept`: the KPI had a period already, which stays. */
  result: 'stored' | 'kept';
}

/**
 * Stores the inferred period of each KPI of the tenant that has none stored; a KPI that has one keeps
 * it (the write is conditioned on its absence), so running it again changes nothing. Reads a page of
 * KPIs at a time and, per KPI, its HISTORY_PERIODS newest measurements.
 */
export const inferKpiPeriods = async (db: Database, tenantId: string): Promise<InferredPeriod[]> => {
  const results: InferredPeriod[] = [];
  let cursor: string | undefined;
  do {
    const page = await listEveryKpi(db, tenantId, { limit: 100, ...(cursor ? { cursor } : {}) });
    for (const kpi of page.items) {
      const history = await listRecentMeasurements(db, kpi.id, HISTORY_PERIODS);
      const { period, from } = inferPeriod(kpi, history);
      const stored = await storeKpiPeriodIfAbsent(db, kpi.id, period);
      results.push({ kpiId: kpi.id, name: kpi.name, period, from, result: stored ? 'stored' : 'kept' });
    }
    cursor = page.nextCursor;
  } while (cursor);
  return results;
};

export interface MigratedKpiIndex {
  tenantId: string;
  /** KPIs whose index entry was moved, and those already in place. */
  moved: number;
  kept: number;
  /** The tenant's count of live KPIs, as now stored. */
  liveKpis: number;
}

/**
 * Puts every KPI of the tenant where the KPI lists find it (by state and cycle, lib/db/keys.ts) and
 * stores its count of live KPIs, which the plan maximum is held to. Running it again moves nothing.
 * Run once per stage after upgrading, before tenants create KPIs through the API: the count is set,
 * not added to.
 */
export const migrateKpiIndex = async (db: Database, tenantId: string): Promise<MigratedKpiIndex> => {
  const result = { tenantId, moved: 0, kept: 0, liveKpis: 0 };
  let cursor: string | undefined;
  do {
    const page = await listEveryKpi(db, tenantId, { limit: 100, ...(cursor ? { cursor } : {}) });
    for (const kpi of page.items) {
      if (await moveKpiIndexEntry(db, kpi)) result.moved++;
      else result.kept++;
      if (kpi.archivedAt === undefined) result.liveKpis++;
    }
    cursor = page.nextCursor;
  } while (cursor);
  await setKpiCount(db, tenantId, result.liveKpis);
  return result;
};
