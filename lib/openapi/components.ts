import type { ErrorCode } from '../errors';
import { createApiKeySchema } from '../http/api-key-schemas';
import {
  apiKeyPageSchema,
  apiKeySchema,
  batchResultSchema,
  createdApiKeySchema,
  healthSchema,
  kpiPageSchema,
  kpiSchema,
  loginResponseSchema,
  measurementPageSchema,
  measurementSchema,
  problemSchema,
  refreshResponseSchema,
  strategicCyclePageSchema,
  strategicCycleSchema,
} from '../http/response-schemas';
import { loginSchema, refreshSchema } from '../http/schemas';
import {
  batchSchema,
  MAX_MEASUREMENT_VALUE,
  MIN_MEASUREMENT_MAGNITUDE,
  measurementSchema as measurementInputSchema,
} from '../push/measurement-schema';

/**
 * The named schemas of the OpenAPI document (`#/components/schemas/<name>`), each the very zod schema
 * a handler validates with (requests) or returns (responses). Request schemas are rendered as what a
 * client sends (zod `io: "input"`: before defaults and transforms); response schemas as what the
 * service sends.
 */
export const requestSchemas = {
  LoginRequest: loginSchema,
  RefreshRequest: refreshSchema,
  CreateApiKeyRequest: createApiKeySchema,
  MeasurementInput: measurementInputSchema,
  BatchRequest: batchSchema,
} as const;

export const responseSchemas = {
  LoginResponse: loginResponseSchema,
  RefreshResponse: refreshResponseSchema,
  StrategicCycle: strategicCycleSchema,
  StrategicCyclePage: strategicCyclePageSchema,
  Kpi: kpiSchema,
  KpiPage: kpiPageSchema,
  Measurement: measurementSchema,
  MeasurementPage: measurementPageSchema,
  BatchResult: batchResultSchema,
  ApiKey: apiKeySchema,
  ApiKeyPage: apiKeyPageSchema,
  CreatedApiKey: createdApiKeySchema,
  Health: healthSchema,
  Problem: problemSchema,
} as const;

const measurementNumber = `A finite number: 0, or a magnitude between ${MIN_MEASUREMENT_MAGNITUDE} and ${MAX_MEASUREMENT_VALUE} (what DynamoDB stores and JavaScript reads back exactly). \`-0\` is stored as 0.`;
const timestamp = 'ISO 8601 date-time, UTC.';

/**
 * Prose for the generated schemas: `$` describes the schema, other keys its properties. A key that
 * names no property of the schema fails the generation, so a renamed field cannot keep a stale text.
 */
export const schemaDescriptions: Record<string, Record<string, string>> = {
  LoginRequest: {
    $: 'Spec 2.2. E-mails match case-insensitively; the password is compared as typed.',
    email: "The user's e-mail address.",
    password: "The user's password.",
  },
  LoginResponse: {
    $: 'Spec 2.3.',
    token: 'Access token (JWT, HS256, `typ: at+jwt`): send it as `Authorization: Bearer <token>`.',
    refreshToken: 'Refresh token (JWT, `typ: rt+jwt`, 30 days): trade it for a new access token.',
    expiresIn: 'Lifetime of the access token in seconds: 86400.',
  },
  RefreshRequest: { $: 'Spec 2.4.', refreshToken: 'The `refreshToken` of a login.' },
  RefreshResponse: {
    $: 'Spec 2.4: a new access token, no new refresh token.',
    token: 'Access token (JWT).',
    expiresIn: 'Lifetime of the access token in seconds: 86400.',
  },
  StrategicCycle: {
    $: 'A strategic cycle of the caller’s tenant.',
    startDate: 'First day, `YYYY-MM-DD`.',
    endDate: 'Last day, `YYYY-MM-DD`.',
    createdAt: timestamp,
  },
  StrategicCyclePage: {
    $: 'One page, oldest first.',
    nextCursor: 'Pass as `cursor` for the next page; absent on the last page.',
  },
  Kpi: {
    $: 'A KPI of the caller’s tenant: its `id` and `type` are the `kpiId` and `kpiType` to push.',
    type: 'KPI type (spec 2.6).',
    unit: 'Unit of the values, when set.',
    createdAt: timestamp,
  },
  KpiPage: {
    $: 'One page, oldest first.',
    nextCursor: 'Pass as `cursor` for the next page; absent on the last page.',
  },
  MeasurementInput: {
    $: 'Spec 2.5. Unknown fields are rejected. A measurement is identified by (KPI, `periodStart`, `periodEnd`): pushing the same KPI and period again replaces the values.',
    kpiId: 'UUID of a KPI of the key’s tenant (`GET /kpis`).',
    kpiType: 'The KPI’s type (spec 2.6); must match the KPI.',
    actual: `Actual (realized) value. ${measurementNumber}`,
    target: `Target value for the period; \`null\` or absent = none. ${measurementNumber}`,
    forecast: `Forecast value; \`null\` or absent = none. ${measurementNumber}`,
    periodStart:
      'First day of the period, a calendar date `YYYY-MM-DD` (`2026-02-30` is invalid), not after `periodEnd`. Default: the first day of the month (UTC) of `periodEnd`, or of the current month.',
    periodEnd:
      'Last day of the period, `YYYY-MM-DD`. Default: the last day of the month (UTC) of `periodStart`, or of the current month.',
  },
  BatchRequest: {
    $: 'Spec 4, 8. All or nothing: one invalid element, foreign KPI or repeated (KPI, period) rejects the whole batch and nothing is written.',
    measurements: '1 to 50 measurements; KPI types may be mixed; no two with the same KPI and period.',
  },
  Measurement: {
    $: 'A stored measurement. Absent optional values are `null`.',
    id: 'Stays the same when the measurement is replaced.',
    createdAt: `When the (KPI, period) was first pushed. ${timestamp}`,
    updatedAt: `When it was last pushed. ${timestamp}`,
  },
  MeasurementPage: {
    $: 'One page, ordered by period.',
    nextCursor: 'Pass as `cursor` for the next page; absent on the last page.',
  },
  BatchResult: {
    $: 'One item per request element, in request order.',
    count: 'Number of measurements stored.',
  },
  ApiKey: {
    $: 'An API key as listed: never the raw key nor its hash.',
    prefix: 'The first 8 characters of the key, to recognise it (spec 2.7).',
    status:
      'Computed at every read: `revoked` once revoked, `expired` from `expiresAt` on, else `active` (spec 3).',
    createdAt: timestamp,
    expiresAt: `When the key stops working; \`null\` = never. ${timestamp}`,
    lastUsedAt: `Last successful push with the key; \`null\` = never used. ${timestamp}`,
    revokedAt: `When it was revoked; \`null\` = not revoked. ${timestamp}`,
  },
  ApiKeyPage: {
    $: 'One page, oldest first.',
    nextCursor: 'Pass as `cursor` for the next page; absent on the last page.',
  },
  CreateApiKeyRequest: {
    $: 'Spec 2.7.',
    name: 'A description of the key’s use, 1 to 100 characters after trimming.',
    expiresAt:
      'Optional expiration, an ISO 8601 date-time with offset in the future; `null` or absent = never expires.',
  },
  CreatedApiKey: {
    $: 'The new key. `key` is in this response only: store it now, it cannot be shown again.',
    key: 'The raw API key: `skm_` and 33 base62 characters (random part and a CRC32 checksum).',
    prefix: 'The first 8 characters of the key.',
    createdAt: timestamp,
    expiresAt: `${timestamp} \`null\` = never expires.`,
  },
  Health: { $: 'The service and its table answer.', status: 'Always `ok` in a 200.' },
  Problem: {
    $: 'RFC 9457 problem details (`application/problem+json`). `type` is a stable identifier to switch on.',
    type: 'Stable problem type URI; each response lists the ones it may carry.',
    title: 'Short summary of the problem type.',
    status: 'The HTTP status.',
    detail: 'What went wrong in this request, for humans. 5xx answers carry a fixed text.',
    requestId: 'Quote it when contacting support.',
    errors: 'For `validation-failed`: every offending field, e.g. `measurements[3].actual`.',
    limit: 'For `api-key-limit-reached`: the plan’s maximum of active keys.',
    plan: 'For `api-key-limit-reached`: the tenant’s plan.',
    feature: 'For `feature-not-enabled`: the plan feature that is missing.',
    missingKpiIds:
      'For a push’s `not-found`: every `kpiId` that is not a KPI of the key’s tenant with that `kpiType`.',
  },
};

/** Descriptions of the query and path parameters, by name. */
export const parameterDescriptions: Record<string, string> = {
  limit: 'Page size, 1 to 1000.',
  cursor: 'The `nextCursor` of the previous page (opaque).',
  kpiId: 'The KPI’s `id` (`GET /kpis`). Another tenant’s KPI is 404.',
  id: 'The API key’s `id`. Another tenant’s key is 404.',
};

/**
 * A `detail` for each problem type's example, as the service would write it. Codes without one get
 * their title.
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
  API_KEY_LIMIT_REACHED: {
    detail:
      'The business plan allows 5 active API keys and all 5 are in use. Revoke a key or upgrade the plan.',
    extensions: { limit: 5, plan: 'business' },
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
