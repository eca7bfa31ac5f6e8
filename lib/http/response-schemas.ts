import * as z from 'zod/mini';
import { KPI_TYPES, PLANS } from '../domain';

/**
 * Response bodies, next to the request schemas (./schemas.ts, ../push/measurement-schema.ts). They are
 * the OpenAPI document's response schemas (lib/openapi) and, through the exported types, what the
 * handlers must return: a handler imports these *types only* (`import type`), so no function bundle
 * carries the schemas. Objects are `z.object` (not strict): clients must tolerate new members, the
 * usual rule for additive API changes.
 */

const id = z.uuid();
const timestamp = z.iso.datetime({ offset: true });
const date = z.iso.date();

/** Spec 2.3. */
export const loginResponseSchema = z.object({
  token: z.string(),
  refreshToken: z.string(),
  expiresIn: z.int(),
});
export type LoginResponse = z.output<typeof loginResponseSchema>;

/** Spec 2.4: no new refresh token. */
export const refreshResponseSchema = z.object({ token: z.string(), expiresIn: z.int() });
export type RefreshResponse = z.output<typeof refreshResponseSchema>;

/** The list envelope of every collection (README "Lists"): without `nextCursor` the list is complete. */
export const pageOf = <T extends z.core.$ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.optional(z.string()) });
export const strategicCycleSchema = z.object({
  id,
  name: z.string(),
  startDate: date,
  endDate: date,
  createdAt: timestamp,
});
export const strategicCyclePageSchema = pageOf(strategicCycleSchema);
export type StrategicCyclePage = z.output<typeof strategicCyclePageSchema>;

export const kpiSchema = z.object({
  id,
  type: z.enum(KPI_TYPES),
  name: z.string(),
  unit: z.optional(z.string()),
  createdAt: timestamp,
});

/** A stored measurement (spec 2.5 plus identity and timestamps); absent optional values are `null`. */
export const measurementSchema = z.object({
  id,
  kpiId: id,
  kpiType: z.enum(KPI_TYPES),
  actual: z.number(),
  target: z.nullable(z.number()),
  forecast: z.nullable(z.number()),
  periodStart: date,
  periodEnd: date,
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type MeasurementResponse = z.output<typeof measurementSchema>;

/**
 * A measurement as the read endpoints show it (issue 15, lib/db/measurements.ts `MeasurementRecord`):
 * the stored values and where they came from. Push answers keep the plain shape (the pusher knows its key).
 */
export const measurementRecordSchema = z.extend(measurementSchema, {
  receivedAt: z.nullable(timestamp),
  apiKeyId: z.nullable(id),
  apiKeyPrefix: z.nullable(z.string()),
});
export const measurementPageSchema = pageOf(measurementRecordSchema);
export type MeasurementPage = z.output<typeof measurementPageSchema>;

/** `GET /kpis?include=activity` (issue 15, lib/kpis/activity.ts): a KPI's recent arrivals. */
export const activityPointSchema = z.object({
  periodStart: date,
  periodEnd: date,
  actual: z.number(),
  target: z.nullable(z.number()),
  forecast: z.nullable(z.number()),
});
export const kpiActivitySchema = z.object({
  latest: z.nullable(measurementRecordSchema),
  recent: z.array(activityPointSchema),
  lastReceivedAt: z.nullable(timestamp),
  usualIntervalDays: z.nullable(z.number()),
  quiet: z.boolean(),
});
/** An item of `GET /kpis`: `activity` only with `?include=activity`. */
export const kpiListItemSchema = z.extend(kpiSchema, { activity: z.optional(kpiActivitySchema) });
export const kpiPageSchema = pageOf(kpiListItemSchema);
export type KpiPage = z.output<typeof kpiPageSchema>;

/** `GET /kpis/{kpiId}` (issue 15): the KPI and one page of its measurements, in period order. */
export const kpiDetailSchema = z.extend(kpiSchema, {
  measurements: z.array(measurementRecordSchema),
  nextCursor: z.optional(z.string()),
});
export type KpiDetailResponse = z.output<typeof kpiDetailSchema>;

/** `?dryRun=true` (issue 12): the record a push would store; `id` is null for one not stored yet. */
export const plannedMeasurementSchema = z.extend(measurementSchema, { id: z.nullable(id) });
const pushStatus = z.enum(['created', 'updated']);
export const dryRunMeasurementSchema = z.object({
  dryRun: z.literal(true),
  status: pushStatus,
  measurement: plannedMeasurementSchema,
});
export type DryRunMeasurementResponse = z.output<typeof dryRunMeasurementSchema>;
export const dryRunBatchSchema = z.object({
  dryRun: z.literal(true),
  count: z.int(),
  items: z.array(z.object({ index: z.int(), status: pushStatus, measurement: plannedMeasurementSchema })),
});
export type DryRunBatchResponse = z.output<typeof dryRunBatchSchema>;

/** POST /integrations/push/measurements/batch: one item per request element, in request order. */
export const batchResultSchema = z.object({
  count: z.int(),
  items: z.array(
    z.object({
      index: z.int(),
      status: z.enum(['created', 'updated']),
      measurement: measurementSchema,
    }),
  ),
});
export type BatchResultResponse = z.output<typeof batchResultSchema>;

/** A key's neighbour in a roll (issue 13). */
export const keyRefSchema = z.object({ id, prefix: z.string() });

/** Who changed a key (issue 13's audit trail): a user of the tenant, or an operator of the CLI. */
export const auditActorSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('user'), userId: z.string(), email: z.nullable(z.string()) }),
  z.object({ type: z.literal('operator'), name: z.string() }),
]);

const keyStatus = z.enum(['active', 'revoked', 'expired']);

/** What management clients see of a key (lib/api-keys/views.ts): never the raw key (after creation) nor its hash. */
export const apiKeySchema = z.object({
  id,
  name: z.string(),
  prefix: z.string(),
  status: keyStatus,
  createdAt: timestamp,
  expiresAt: z.nullable(timestamp),
  lastUsedAt: z.nullable(timestamp),
  revokedAt: z.nullable(timestamp),
  kpiIds: z.nullable(z.array(id)),
  createdBy: z.nullable(auditActorSchema),
  revokedBy: z.nullable(auditActorSchema),
  rolledAt: z.nullable(timestamp),
  rolledBy: z.nullable(auditActorSchema),
  replacedBy: z.nullable(keyRefSchema),
  replaces: z.nullable(keyRefSchema),
});
export type ApiKeyResponse = z.output<typeof apiKeySchema>;

/** `GET /api-keys` also tells the tenant's plan (issue 13), so a client can say "2 of 3 keys used". */
export const keyPlanSchema = z.object({
  name: z.enum(PLANS),
  apiKeyLimit: z.nullable(z.int()),
  features: z.array(z.string()),
});
export const apiKeyPageSchema = z.extend(pageOf(apiKeySchema), { plan: z.nullable(keyPlanSchema) });
export type ApiKeyPage = z.output<typeof apiKeyPageSchema>;

/** POST /api-keys: the key as listed, plus the raw key, in this response only (spec 2.7). */
export const createdApiKeySchema = z.extend(apiKeySchema, { key: z.string() });
export type CreatedApiKeyResponse = z.output<typeof createdApiKeySchema>;

/** POST /api-keys/{id}/roll (issue 13): the new key (raw key shown once) and the old key as it is now. */
export const rolledApiKeySchema = z.extend(createdApiKeySchema, { previous: apiKeySchema });
export type RolledApiKeyResponse = z.output<typeof rolledApiKeySchema>;

/** GET /integrations/push/key (issue 12, lib/push/key-check.ts): does this key work, and for what. */
export const keyCheckSchema = z.object({
  key: z.object({
    id,
    prefix: z.string(),
    name: z.string(),
    status: z.literal('active'),
    createdAt: timestamp,
    expiresAt: z.nullable(timestamp),
  }),
  organization: z.object({ id, plan: z.enum(PLANS), pushEnabled: z.boolean() }),
  rateLimit: z.object({
    limit: z.int(),
    remaining: z.int(),
    resetSeconds: z.int(),
    windowSeconds: z.int(),
  }),
});
export type KeyCheckResponse = z.output<typeof keyCheckSchema>;

/** GET /health. */
export const healthSchema = z.object({ status: z.literal('ok') });
export type HealthResponse = z.output<typeof healthSchema>;

/**
 * RFC 9457 problem details, as lib/http/middleware.ts renders them. The extension members are those
 * some problem types carry; each response of the OpenAPI document narrows `type` and `status`.
 */
export const problemSchema = z.object({
  type: z.url(),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  requestId: z.optional(z.string()),
  errors: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
  limit: z.optional(z.int()),
  plan: z.optional(z.string()),
  feature: z.optional(z.string()),
  missingKpiIds: z.optional(z.array(z.string())),
  outOfScopeKpiIds: z.optional(z.array(z.string())),
  replacedBy: z.optional(keyRefSchema),
  keyStatus: z.optional(z.enum(['revoked', 'expired'])),
});
