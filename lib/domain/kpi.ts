import * as z from 'zod/mini';
import { id, timestamp } from './values';

/** Spec 2.6: the allowed values of `kpiType`. */
export const KpiType = {
  SWOT_KPI: 'SWOT_KPI',
  PESTLE_KPI: 'PESTLE_KPI',
  THEME_KPI: 'THEME_KPI',
  KPI_DEFINITION: 'KPI_DEFINITION',
  BSC_KPI: 'BSC_KPI',
  ASIS_KPI: 'ASIS_KPI',
  OKR_KEY_RESULT: 'OKR_KEY_RESULT',
  PRODUCT_SCORECARD_KPI: 'PRODUCT_SCORECARD_KPI',
} as const;
export type KpiType = (typeof KpiType)[keyof typeof KpiType];
export const KPI_TYPES = Object.values(KpiType) as [KpiType, ...KpiType[]];

export const kpiTypeSchema = z.enum(KPI_TYPES, { message: `must be one of ${KPI_TYPES.join(', ')}` });

/** Which way a KPI improves: whether meeting the target means reaching it from below or from above. */
export const KPI_DIRECTIONS = ['higher_is_better', 'lower_is_better'] as const;
export const kpiDirectionSchema = z.enum(KPI_DIRECTIONS);
export type KpiDirection = z.output<typeof kpiDirectionSchema>;

/** What a KPI is measured against, until someone sets it otherwise. */
export const KPI_TARGET_DEFAULTS = {
  direction: 'higher_is_better',
  tolerance: 0.1,
  qualitative: false,
} as const;

/** A KPI of a tenant: what measurements are pushed to. Ids are globally unique. */
export const kpiSchema = z.object({
  id,
  tenantId: id,
  type: kpiTypeSchema,
  name: z.string(),
  unit: z.optional(z.string()),
  createdAt: timestamp,
  direction: kpiDirectionSchema.check(
    z.describe(
      '`higher_is_better` (the default): the target is met from below; `lower_is_better`: from above.',
    ),
  ),
  /** How far from its target a KPI is still "at risk" rather than "off track", as a fraction of the target. */
  tolerance: z
    .number()
    .check(
      z.gte(0),
      z.lte(1),
      z.describe(
        'How far from the target, as a fraction of it, the KPI is still at risk rather than off track; default 0.1.',
      ),
    ),
  /** A qualitative KPI (a judgement, not a quantity to meet) has no status. */
  qualitative: z.boolean().check(z.describe('A qualitative KPI has no status against a target.')),
});
export type Kpi = z.output<typeof kpiSchema>;
