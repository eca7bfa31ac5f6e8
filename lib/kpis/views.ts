import * as z from 'zod/mini';
import { type Kpi, kpiSchema } from '../domain/kpi';

const TIMESTAMP = 'ISO 8601 date-time, UTC.';

/**
 * What clients see of a KPI: everything but the tenant, which is the caller's own, and its targets,
 * which `GET /kpis/{kpiId}` lists.
 */
export const kpiViewSchema = z.extend(z.omit(kpiSchema, { tenantId: true, targets: true }), {
  id: kpiSchema.shape.id.check(z.describe('The `kpiId` to push.')),
  type: kpiSchema.shape.type.check(z.describe('KPI type: the `kpiType` to push.')),
  unit: z.optional(z.string().check(z.describe('Unit of the values, when set.'))),
  createdAt: kpiSchema.shape.createdAt.check(z.describe(TIMESTAMP)),
});

export const kpiView = <T extends Kpi>({
  tenantId: _tenant,
  targets: _targets,
  ...kpi
}: T): Omit<T, 'tenantId' | 'targets'> => kpi;
