import type { KpiType } from '../domain';
import type { Database } from './client';
import { keys } from './keys';
import { type Page, type PageRequest, queryPrefix } from './pagination';

/** A stored measurement as clients see it (spec 2.5 plus identity and timestamps). */
export interface Measurement {
  id: string;
  kpiId: string;
  kpiType: KpiType;
  actual: number;
  target: number | null;
  forecast: number | null;
  periodStart: string;
  periodEnd: string;
  createdAt: string;
  updatedAt: string;
}

export const toMeasurement = (item: Record<string, unknown>): Measurement => ({
  id: item.id as string,
  kpiId: item.kpiId as string,
  kpiType: item.kpiType as KpiType,
  actual: item.actual as number,
  target: (item.target as number | undefined) ?? null,
  forecast: (item.forecast as number | undefined) ?? null,
  periodStart: item.periodStart as string,
  periodEnd: item.periodEnd as string,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
});

/** Ordered by period: the sort key is `MEASUREMENT#<periodStart>#<periodEnd>` with ISO dates. */
export const listMeasurements = (
  db: Database,
  kpiId: string,
  page: PageRequest,
): Promise<Page<Measurement>> => queryPrefix(db, keys.measurementsOfKpi(kpiId), page, toMeasurement);
