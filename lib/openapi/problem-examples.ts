import type { ErrorCode } from '../errors';

/**
 * A `detail` for each problem type's example in the OpenAPI document, as the service would write it.
 * Codes without one get their title.
 */
export const problemExampleDetails: Partial<
  Record<ErrorCode, { detail: string; extensions?: Record<string, unknown> }>
> = {
  MALFORMED_REQUEST: { detail: 'The request body is not valid JSON.' },
  VALIDATION_FAILED: {
    detail: 'The request body has 1 invalid field(s).',
    extensions: { errors: [{ path: 'measurements[3].actual', message: 'must be a finite number' }] },
  },
  UNAUTHENTICATED: { detail: 'Send the access token as "Authorization: Bearer <token>".' },
  INVALID_CREDENTIALS: { detail: 'The e-mail or password is wrong.' },
  INVALID_API_KEY: { detail: 'The API key is not known. Check the x-api-key header.' },
  FORBIDDEN: { detail: 'This operation requires the role ADMIN.' },
  TENANT_MISMATCH: { detail: "X-Tenant-ID does not match the token's tenant." },
  TENANT_INACTIVE: { detail: 'The organization of this API key is inactive.' },
  USER_DISABLED: { detail: 'This account is disabled.' },
  API_KEY_REVOKED: { detail: 'API key skm_P97W… has been revoked.' },
  API_KEY_EXPIRED: { detail: 'API key skm_P97W… expired at 2026-06-30T00:00:00.000Z.' },
  SOURCE_NOT_ALLOWED: {
    detail:
      'API key skm_P97W… may not be used from 198.51.100.23; add that address to the key’s allowed sources if it should.',
    extensions: { sourceIp: '198.51.100.23' },
  },
  FEATURE_NOT_ENABLED: {
    detail:
      'The plan of this organization does not include kpi_push_measurement. Upgrade the plan to push measurements; the key itself is fine.',
    extensions: { feature: 'kpi_push_measurement' },
  },
  NOT_FOUND: {
    detail:
      'No KPI of this organization with the given id and kpiType: 01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f.',
    extensions: { missingKpiIds: ['01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f'] },
  },
  KPI_OUTSIDE_KEY_SCOPE: {
    detail: 'API key skm_P97W… may push only to its 1 KPI(s); not to 01936f0e-8a10-7f0b-8c55-1d2e3f405162.',
    extensions: { outOfScopeKpiIds: ['01936f0e-8a10-7f0b-8c55-1d2e3f405162'] },
  },
  API_KEY_NOT_ACTIVE: {
    detail: 'API key skm_P97W… is revoked; only an active key can be rolled. Create a new key instead.',
    extensions: { keyStatus: 'revoked' },
  },
  API_KEY_ALREADY_ROLLED: {
    detail:
      'API key skm_P97W… was already rolled; it is replaced by skm_7Qx2… (id 0193d2c4-51e8-7a0b-9c3d-2e1f0a9b8c7d). Roll that key instead.',
    extensions: { replacedBy: { id: '0193d2c4-51e8-7a0b-9c3d-2e1f0a9b8c7d', prefix: 'skm_7Qx2' } },
  },
  API_KEY_LIMIT_REACHED: {
    detail:
      'The business plan allows 5 active API keys and all 5 are in use. Revoke a key or upgrade the plan.',
    extensions: { limit: 5, plan: 'business' },
  },
  PULL_INTEGRATION_LIMIT_REACHED: {
    detail:
      'The business plan allows 100 pull integrations and all 100 exist. Delete one or upgrade the plan.',
    extensions: { limit: 100, plan: 'business' },
  },
  KPI_LIMIT_REACHED: {
    detail: 'The free plan allows 50 live KPIs and all 50 exist. Archive one or upgrade the plan.',
    extensions: { limit: 50, plan: 'free' },
  },
  KPI_ARCHIVED: {
    detail:
      'KPI 01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f (Monthly revenue) is archived; restore it with PATCH {"archived": false} to write to it.',
    extensions: { archivedKpiIds: ['01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f'] },
  },
  CYCLE_HAS_KPIS: {
    detail:
      'Strategic cycle Strategy 2026 has 3 KPI(s); move them to another cycle or clear their cycleId first.',
    extensions: { kpiCount: 3 },
  },
  PAYLOAD_TOO_LARGE: { detail: 'The request body must be at most 65536 bytes.' },
  UNSUPPORTED_MEDIA_TYPE: { detail: 'Content-Type must be application/json, got "text/plain".' },
  RATE_LIMIT_EXCEEDED: {
    detail: 'This API key may make 300 push requests per 60 s on the business plan. Retry after 17 s.',
  },
  QUOTA_EXCEEDED: {
    detail:
      "The monthly request quota of this organization's plan is used up; it renews on the first day of the next month (UTC). Upgrade the plan to push more.",
  },
  TOO_MANY_LOGIN_ATTEMPTS: { detail: 'Too many failed logins for this e-mail. Try again in 840 seconds.' },
  INTERNAL: { detail: 'An unexpected error occurred. If it persists, contact support with the requestId.' },
  SERVICE_UNAVAILABLE: {
    detail: 'The service is temporarily unavailable. Retry after the time in Retry-After.',
  },
};
