/** Plans (spec 8) and the features they include (spec 1). What a plan allows is decided by the modules that enforce it. */
export const Plan = { FREE: 'free', BUSINESS: 'business', ENTERPRISE: 'enterprise' } as const;
export type Plan = (typeof Plan)[keyof typeof Plan];
export const PLANS = Object.values(Plan) as [Plan, ...Plan[]];

/** Plan features named by the spec (section 1). */
export const Feature = {
  KPI_PUSH_MEASUREMENT: 'kpi_push_measurement',
  KPI_API_INTEGRATION: 'kpi_api_integration',
} as const;
export type Feature = (typeof Feature)[keyof typeof Feature];
export const FEATURES = Object.values(Feature) as [Feature, ...Feature[]];
