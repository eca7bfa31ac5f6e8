/**
 * Plans (spec 8) and the features they include (spec 1). What a plan allows is decided by the modules
 * that enforce it; the maxima that storage conditions its writes on are here.
 */
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

/**
 * Pull integrations a tenant may have: every plan has a maximum, as the integrations of all tenants
 * share the pull workers (the spec names none; the API key maximum is lib/api-keys/rules.ts).
 */
export const PULL_INTEGRATION_LIMITS: Record<Plan, number> = { free: 10, business: 100, enterprise: 500 };

/**
 * Live (not archived) KPIs a tenant may have: every KPI costs the alert check, the lists and the pull
 * workers, so every plan has a maximum. An operator creating KPIs with the CLI is not held to it.
 */
export const KPI_LIMITS: Record<Plan, number> = { free: 50, business: 1000, enterprise: 10000 };
