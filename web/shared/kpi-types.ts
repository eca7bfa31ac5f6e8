/** The KPI types in words, as the KPI page's list and the strategy page's form name them. */
import type { KpiType } from '../../lib/domain/kpi';

/**
 * Spec 2.6: what each KPI type stands for; the compiler checks that every type has its label. The
 * domain's list itself is not imported: it comes with its zod schemas, which have no place in a page.
 */
export const TYPE_LABELS: Record<KpiType, string> = {
  SWOT_KPI: 'SWOT analysis',
  PESTLE_KPI: 'PESTLE analysis',
  THEME_KPI: 'Strategic theme',
  KPI_DEFINITION: 'KPI definition',
  BSC_KPI: 'Balanced scorecard',
  ASIS_KPI: 'As-is analysis',
  OKR_KEY_RESULT: 'OKR key result',
  PRODUCT_SCORECARD_KPI: 'Product scorecard',
};
export const KPI_TYPES = Object.keys(TYPE_LABELS) as KpiType[];
