import type { Database } from '../db/client';
import { type Kpi, listKpis } from '../db/kpis';
import { listRecentMeasurements } from '../db/measurements';
import type { Page, PageRequest } from '../db/pagination';
import type { KpiType } from '../domain';
import { type KpiActivity, kpiActivity, RECENT_MEASUREMENTS } from './activity';

export { MAX_ACTIVITY_PAGE_SIZE } from './activity';

export interface KpiWithActivity extends Kpi {
  activity: KpiActivity;
}

/**
 * A page of the tenant's KPIs, each with its newest measurements and whether it has gone quiet
 * (issue 15). Cost: the KPI page (one index Query), then one Query per KPI for at most
 * RECENT_MEASUREMENTS items, all in parallel: two sequential round trips, and items read bounded by
 * KPIs x (1 + RECENT_MEASUREMENTS) whatever the number of periods. Nothing is written on push for it,
 * so the push write budget (issue 10) is untouched.
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
  const items = kpis.items.map((kpi, i) => ({ ...kpi, activity: kpiActivity(recent[i] ?? [], nowMs) }));
  return kpis.nextCursor ? { items, nextCursor: kpis.nextCursor } : { items };
};
