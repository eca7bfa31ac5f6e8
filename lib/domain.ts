/** Plans (spec 8) and their limits live here, next to the feature flags they gate. */
export const Plan = { FREE: 'free', BUSINESS: 'business', ENTERPRISE: 'enterprise' } as const;
export type Plan = (typeof Plan)[keyof typeof Plan];
export const PLANS = Object.values(Plan) as [Plan, ...Plan[]];

/** Spec 8: active API keys a tenant may hold; `null` is unlimited. */
export const API_KEY_LIMITS: Record<Plan, number | null> = { free: 3, business: 5, enterprise: null };

/** Issue 13: grace period of a rolled key, in hours: the default, and the longest (7 days). */
export const ROLL_GRACE_HOURS = { default: 24, max: 168 } as const;

/** Plan features named by the spec (section 1). */
export const Feature = {
  KPI_PUSH_MEASUREMENT: 'kpi_push_measurement',
  KPI_API_INTEGRATION: 'kpi_api_integration',
} as const;
export type Feature = (typeof Feature)[keyof typeof Feature];
export const FEATURES = Object.values(Feature) as [Feature, ...Feature[]];

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
