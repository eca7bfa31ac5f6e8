import type { ErrorCode } from '../errors';
import { createApiKeySchema, rollApiKeySchema } from '../http/api-key-schemas';
import {
  activityPointSchema,
  apiKeyPageSchema,
  apiKeySchema,
  auditActorSchema,
  batchResultSchema,
  createdApiKeySchema,
  dryRunBatchSchema,
  dryRunMeasurementSchema,
  healthSchema,
  keyCheckSchema,
  keyPlanSchema,
  keyRefSchema,
  kpiActivitySchema,
  kpiDetailSchema,
  kpiListItemSchema,
  kpiPageSchema,
  loginResponseSchema,
  measurementPageSchema,
  measurementRecordSchema,
  measurementSchema,
  plannedMeasurementSchema,
  problemSchema,
  refreshResponseSchema,
  rolledApiKeySchema,
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
  RollApiKeyRequest: rollApiKeySchema,
  MeasurementInput: measurementInputSchema,
  BatchRequest: batchSchema,
} as const;

export const responseSchemas = {
  LoginResponse: loginResponseSchema,
  RefreshResponse: refreshResponseSchema,
  StrategicCycle: strategicCycleSchema,
  StrategicCyclePage: strategicCyclePageSchema,
  KpiListItem: kpiListItemSchema,
  KpiActivity: kpiActivitySchema,
  ActivityPoint: activityPointSchema,
  KpiPage: kpiPageSchema,
  KpiDetail: kpiDetailSchema,
  Measurement: measurementSchema,
  MeasurementRecord: measurementRecordSchema,
  MeasurementPage: measurementPageSchema,
  BatchResult: batchResultSchema,
  PlannedMeasurement: plannedMeasurementSchema,
  DryRunMeasurement: dryRunMeasurementSchema,
  DryRunBatch: dryRunBatchSchema,
  KeyCheck: keyCheckSchema,
  ApiKey: apiKeySchema,
  KeyRef: keyRefSchema,
  AuditActor: auditActorSchema,
  KeyPlan: keyPlanSchema,
  ApiKeyPage: apiKeyPageSchema,
  CreatedApiKey: createdApiKeySchema,
  RolledApiKey: rolledApiKeySchema,
  Health: healthSchema,
  Problem: problemSchema,
} as const;

const measurementNumber = `A finite number: 0, or a magnitude between ${MIN_MEASUREMENT_MAGNITUDE} and ${MAX_MEASUREMENT_VALUE} (what DynamoDB stores and JavaScript reads back exactly). \`-0\` is stored as 0.`;
const timestamp = 'ISO 8601 date-time, UTC.';
const nextCursor = 'Pass as `cursor` for the next page; absent on the last page.';

/** Property texts shared by the schemas that extend one another (z.extend renders them flat). */
const kpiFields = {
  id: 'The `kpiId` to push.',
  type: 'KPI type (spec 2.6): the `kpiType` to push.',
  unit: 'Unit of the values, when set.',
  createdAt: timestamp,
};
const measurementFields = {
  id: 'Stays the same when the measurement is replaced.',
  createdAt: `When the (KPI, period) was first pushed. ${timestamp}`,
  updatedAt: `When it was last pushed. ${timestamp}`,
};
const measurementRecordFields = {
  ...measurementFields,
  receivedAt: `When the last push of it arrived (issue 15); \`null\` for a record not written by push. ${timestamp}`,
  apiKeyId:
    'The key that pushed it last (its `id` in `GET /api-keys`); `null` for a record not written by push.',
  apiKeyPrefix: 'The first 8 characters of that key; `null` for a record not written by push.',
};
const apiKeyFields = {
  prefix: 'The first 8 characters of the key, to recognise it (spec 2.7).',
  status:
    'Computed at every read: `revoked` once revoked, `expired` from `expiresAt` on, else `active` (spec 3).',
  createdAt: timestamp,
  expiresAt: `When the key stops working; \`null\` = never. A rolled key’s is the end of its grace period. ${timestamp}`,
  lastUsedAt: `Last successful push with the key; \`null\` = never used. ${timestamp}`,
  revokedAt: `When it was revoked; \`null\` = not revoked. ${timestamp}`,
  kpiIds: 'The KPIs the key may push to (issue 13); `null` = every KPI of the tenant.',
  createdBy:
    'Who created the key (for a rolled-to key: who rolled); `null` for keys made before this was recorded.',
  revokedBy: 'Who revoked the key; `null` = not revoked (or not recorded).',
  rolledAt: `When the key was rolled; \`null\` = not rolled. ${timestamp}`,
  rolledBy: 'Who rolled the key; `null` = not rolled (or not recorded).',
  replacedBy: 'The key that replaced this one in a roll; `null` = not rolled.',
  replaces: 'The key this one replaced in a roll; `null` = not made by a roll.',
};
const createdKeyFields = {
  ...apiKeyFields,
  status: 'Always `active` for a new key (unless the `expiresAt` sent was only moments away).',
  lastUsedAt: 'Always `null` for a new key.',
  key: 'The raw API key: `skm_` and 33 base62 characters (random part and a CRC32 checksum).',
};

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
  KpiListItem: {
    $: 'A KPI of the caller’s tenant: its `id` and `type` are the `kpiId` and `kpiType` to push.',
    ...kpiFields,
    activity: 'Only with `?include=activity` (issue 15).',
  },
  KpiActivity: {
    $: 'What arrived for the KPI lately (issue 15), from its 8 newest periods.',
    latest: 'The newest period’s measurement; `null` when the KPI has none.',
    recent: 'The values of up to 8 newest periods, newest first (for a sparkline).',
    lastReceivedAt: `When a measurement of the KPI last arrived (the newest \`receivedAt\` among \`recent\`); \`null\` without data. ${timestamp}`,
    usualIntervalDays:
      'The median gap in days between the starts of those periods (with one period, its length); `null` without data.',
    quiet: 'Nothing arrived for more than twice `usualIntervalDays`, or nothing ever arrived.',
  },
  ActivityPoint: { $: 'The values of one period.' },
  KpiPage: {
    $: 'One page, oldest first.',
    nextCursor,
  },
  KpiDetail: {
    $: 'A KPI and one page of its measurements (issue 15).',
    ...kpiFields,
    measurements: 'In period order, oldest first.',
    nextCursor: 'Pass as `cursor` for the next page of measurements; absent on the last page.',
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
    $: 'A stored measurement, as a push answers it. Absent optional values are `null`.',
    ...measurementFields,
  },
  MeasurementRecord: {
    $: 'A stored measurement as the read endpoints show it: with where it came from. Absent optional values are `null`.',
    ...measurementRecordFields,
  },
  MeasurementPage: {
    $: 'One page, ordered by period.',
    nextCursor,
  },
  BatchResult: {
    $: 'One item per request element, in request order.',
    count: 'Number of measurements stored.',
  },
  PlannedMeasurement: {
    $: 'What a push would store (`?dryRun=true`): the stored record’s shape.',
    ...measurementFields,
    id: 'The stored measurement’s id when it exists (`updated`); `null` for a new one.',
  },
  DryRunMeasurement: {
    $: 'A dry run of one measurement (`?dryRun=true`, issue 12): nothing was written.',
    dryRun: 'Always `true`: tells this answer from a stored measurement.',
    status: 'What a push would do: `created` or `updated`.',
  },
  DryRunBatch: {
    $: 'A dry run of a batch (`?dryRun=true`, issue 12): one item per request element, in request order; nothing was written.',
    dryRun: 'Always `true`: tells this answer from a stored batch.',
    count: 'Number of measurements the push would store.',
  },
  KeyCheck: {
    $: 'The key behind `x-api-key`, its organization and its rate-limit budget (issue 12).',
    key: 'The key: `id`, `prefix`, `name`, `status` (always `active` here), `createdAt`, `expiresAt` (`null` = never).',
    organization:
      'The key’s tenant: `id`, `plan`, and `pushEnabled`, whether the plan includes `kpi_push_measurement` (without it a push is 403 `feature-not-enabled`).',
    rateLimit:
      'The budget the next push would see: `limit` requests per `windowSeconds`, `remaining` in this window, `resetSeconds` until it resets. The check itself spends none.',
  },
  ApiKey: {
    $: 'An API key as listed: never the raw key nor its hash.',
    ...apiKeyFields,
  },
  KeyRef: { $: 'A key’s neighbour in a roll.', prefix: 'The first 8 characters of that key.' },
  AuditActor: {
    $: 'Who changed a key (issue 13): a user of the tenant (`userId`, and `email`, `null` if the user is gone) or an operator of the CLI (`name`).',
  },
  KeyPlan: {
    $: 'The tenant’s plan (spec 8).',
    apiKeyLimit: 'Active keys the plan allows; `null` = unlimited.',
    features: 'The plan’s features, e.g. `kpi_push_measurement` (needed to push) and `kpi_api_integration`.',
  },
  ApiKeyPage: {
    $: 'One page, oldest first, and the tenant’s plan.',
    nextCursor,
    plan: 'The tenant’s plan, for "2 of 3 keys used"; `null` only if the tenant record is missing.',
  },
  CreateApiKeyRequest: {
    $: 'Spec 2.7.',
    name: 'A description of the key’s use, 1 to 100 characters after trimming.',
    expiresAt:
      'Optional expiration, an ISO 8601 date-time with offset in the future; `null` or absent = never expires.',
    kpiIds:
      'Optional KPI scope (issue 13): 1 to 100 ids of KPIs of the tenant, each once; the key may push to these only. `null` or absent = every KPI. Fixed for the key’s life (a roll keeps it).',
  },
  RollApiKeyRequest: {
    $: 'Issue 13. Optional: without a body, the defaults.',
    gracePeriodHours:
      'Hours the old key keeps working, 0 to 168 (7 days); default 24; 0 = the old key stops now (a leaked key). It never lengthens the old key’s life.',
    expiresAt:
      'Expiration of the new key, an ISO 8601 date-time with offset in the future; `null` = never. Absent: the old key’s lifetime, counted from now.',
  },
  CreatedApiKey: {
    $: 'The new key. `key` is in this response only: store it now, it cannot be shown again.',
    ...createdKeyFields,
  },
  RolledApiKey: {
    $: 'The new key (`key` in this response only) and `previous`, the old key as it is now: `replacedBy` the new key, expiring at the end of the grace period.',
    ...createdKeyFields,
    previous: 'The old key after the roll.',
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
    outOfScopeKpiIds: 'For `kpi-outside-key-scope`: every `kpiId` of the push outside the key’s scope.',
    replacedBy: 'For `api-key-already-rolled`: the key that replaced it, the one to roll instead.',
    keyStatus: 'For `api-key-not-active`: the key’s status.',
  },
};

/** Descriptions of the query and path parameters, by name. */
export const parameterDescriptions: Record<string, string> = {
  limit: 'Page size, 1 to 1000.',
  cursor: 'The `nextCursor` of the previous page (opaque).',
  kpiId: 'The KPI’s `id` (`GET /kpis`). Another tenant’s KPI is 404.',
  id: 'The API key’s `id`. Another tenant’s key is 404.',
  type: 'Only KPIs of this type (spec 2.6).',
  include:
    '`activity`: add each KPI’s recent measurements and quiet flag (issue 15); `limit` is then at most 100.',
  dryRun:
    '`true`: run every check of a push and answer what it would store, writing nothing (issue 12). `false` or absent: a real push.',
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
