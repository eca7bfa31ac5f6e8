import type { Kpi } from '../db/kpis';

/** What clients see of a KPI: everything but the tenant, which is the caller's own. */
export const kpiView = <T extends Kpi>({ tenantId: _tenant, ...kpi }: T): Omit<T, 'tenantId'> => kpi;
