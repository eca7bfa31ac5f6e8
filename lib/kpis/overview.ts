import type { Database } from '../db/client';
import { listKpis } from '../db/kpis';
import { latestWithTarget, listRecentMeasurements } from '../db/measurements';
import type { Page, PageRequest } from '../db/pagination';
import type { Kpi, KpiType } from '../domain/kpi';
import type { Measurement } from '../domain/measurement';
import { type KpiActivity, kpiActivity, RECENT_MEASUREMENTS } from './activity';
import { type KpiStatus, kpiStatus, STATUS_PERIODS } from './status';

export { MAX_ACTIVITY_PAGE_SIZE } from './activity';

export interface KpiWithActivity extends Kpi {
  activity: KpiActivity;
  status: KpiStatus;
}

/**
 * A KPI's status from its newest measurements (newest first): the newest with a target among them;
 * when none has one and there may be older periods, one more Query looks further back.
 */
export const statusFrom = async (db: Database, kpi: Kpi, recent: Measurement[]): Promise<KpiStatus> => {
  if (kpi.qualitative) return kpiStatus(kpi, undefined, recent.length > 0);
  const withTarget =
    recent.find((m) => m.target !== null) ??
    (recent.length < RECENT_MEASUREMENTS ? undefined : await latestWithTarget(db, kpi.id, STATUS_PERIODS));
  return kpiStatus(kpi, withTarget, recent.length > 0);
};

/**
 * A page of the tenant's KPIs, each with its newest measurements, whether it has gone quiet, and its
 * status against its target. Cost: the KPI page (one index Query), then one Query per KPI for at most
 * RECENT_MEASUREMENTS items, all in parallel: two sequential round trips, and items read bounded by
 * KPIs x (1 + RECENT_MEASUREMENTS) whatever the number of periods, plus, for a KPI none of whose
 * newest measurements has a target, one Query of its STATUS_PERIODS newest. Nothing is written on
 * push for it, so the push write budget is untouched.
 */
export const listKpisWithActivity = async (
  db: Database,
  tenantId: string,
  page: PageRequest,
  filter: { type?: KpiType | undefined },
  nowMs: number,
): Promise<Page<KpiWithActivity>> => {
  const kpis = await listKpis(db, tenantId, page, filter);
  const recent = await Promise.all(
    kpis.items.map((kpi) => listRecentMeasurements(db, kpi.id, RECENT_MEASUREMENTS)),
  );
  const statuses = await Promise.all(kpis.items.map((kpi, i) => statusFrom(db, kpi, recent[i] ?? [])));
  const items = kpis.items.map((kpi, i) => ({
    ...kpi,
    activity: kpiActivity(recent[i] ?? [], nowMs),
    status: statuses[i] ?? null,
  }));
  return kpis.nextCursor ? { items, nextCursor: kpis.nextCursor } : { items };
};
