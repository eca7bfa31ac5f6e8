import type { Database } from '../db/client';
import { type KpiListFilter, listKpis } from '../db/kpis';
import { latestWithTarget, listRecentMeasurements } from '../db/measurements';
import type { Page, PageRequest } from '../db/pagination';
import type { Kpi } from '../domain/kpi';
import type { Measurement } from '../domain/measurement';
import { type KpiActivity, kpiActivity, RECENT_MEASUREMENTS } from './activity';
import { type Change, kpiChange } from './change';
import { type KpiArrivals, kpiArrivals } from './quiet';
import { type KpiStatus, kpiStatus, newestWithTarget, STATUS_PERIODS } from './status';

export { MAX_ACTIVITY_PAGE_SIZE } from './activity';

/** A KPI of the list: its arrivals and its change since the last period, from its newest measurements. */
export type KpiWithArrivals = Kpi & KpiArrivals & { change: Change | null };

export interface KpiWithActivity extends KpiWithArrivals {
  activity: KpiActivity;
  status: KpiStatus;
}

/**
 * Most KPIs whose newest measurements are read at once: a page of the plain list may hold 1000 KPIs,
 * and one Lambda should not hold 1000 requests open to DynamoDB.
 */
const READS_AT_ONCE = 100;

/** The newest measurements of each KPI, newest first: one Query of at most RECENT_MEASUREMENTS each. */
export const recentOf = async (db: Database, kpis: Kpi[]): Promise<Measurement[][]> => {
  const recent: Measurement[][] = [];
  for (let start = 0; start < kpis.length; start += READS_AT_ONCE) {
    const slice = kpis.slice(start, start + READS_AT_ONCE);
    recent.push(
      ...(await Promise.all(slice.map((kpi) => listRecentMeasurements(db, kpi.id, RECENT_MEASUREMENTS)))),
    );
  }
  return recent;
};

/**
 * A page of the tenant's KPIs, each with when a measurement last arrived and whether it is quiet.
 * Cost: the KPI page (one index Query), then one Query per KPI for at most RECENT_MEASUREMENTS items
 * (at most 4 KB, so half a read unit), 100 at a time: with the default page of 100, two sequential
 * round trips; a page of 1000 takes eleven. Nothing is written on push for it.
 */
export const listKpisWithArrivals = async (
  db: Database,
  tenantId: string,
  page: PageRequest,
  filter: KpiListFilter,
  nowMs: number,
): Promise<Page<KpiWithArrivals>> => {
  const kpis = await listKpis(db, tenantId, page, filter);
  const recent = await recentOf(db, kpis.items);
  const items = kpis.items.map((kpi, i) => ({
    ...kpi,
    ...kpiArrivals(kpi, recent[i] ?? [], nowMs),
    change: kpiChange(kpi.period, recent[i] ?? []),
  }));
  return kpis.nextCursor ? { items, nextCursor: kpis.nextCursor } : { items };
};

/**
 * A KPI's status from its newest measurements (newest first): the newest with a target among them;
 * when none has one and there may be older periods, one more Query looks further back.
 */
export const statusFrom = async (db: Database, kpi: Kpi, recent: Measurement[]): Promise<KpiStatus> => {
  if (kpi.qualitative) return kpiStatus(kpi, undefined, recent.length > 0);
  const withTarget =
    newestWithTarget(kpi, recent) ??
    (recent.length < RECENT_MEASUREMENTS ? undefined : await latestWithTarget(db, kpi.id, STATUS_PERIODS));
  return kpiStatus(kpi, withTarget, recent.length > 0);
};

/**
 * A page of the tenant's KPIs, each with its newest measurements, its arrivals (as the plain list),
 * and its status against its target. Cost: the KPI page (one index Query), then one Query per KPI for at most
 * RECENT_MEASUREMENTS items, all in parallel: two sequential round trips, and items read bounded by
 * KPIs x (1 + RECENT_MEASUREMENTS) whatever the number of periods, plus, for a KPI none of whose
 * newest measurements has a target, one Query of its STATUS_PERIODS newest. Nothing is written on
 * push for it, so the push write budget is untouched.
 */
export const listKpisWithActivity = async (
  db: Database,
  tenantId: string,
  page: PageRequest,
  filter: KpiListFilter,
  nowMs: number,
): Promise<Page<KpiWithActivity>> => {
  const kpis = await listKpis(db, tenantId, page, filter);
  const recent = await recentOf(db, kpis.items);
  const statuses = await Promise.all(kpis.items.map((kpi, i) => statusFrom(db, kpi, recent[i] ?? [])));
  const items = kpis.items.map((kpi, i) => ({
    ...kpi,
    ...kpiArrivals(kpi, recent[i] ?? [], nowMs),
    change: kpiChange(kpi.period, recent[i] ?? []),
    activity: kpiActivity(recent[i] ?? []),
    status: statuses[i] ?? null,
  }));
  return kpis.nextCursor ? { items, nextCursor: kpis.nextCursor } : { items };
};
