import * as z from 'zod/mini';
import { KPI_TYPES } from '../domain';

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
export const kpiPageSchema = pageOf(kpiSchema);
export type KpiPage = z.output<typeof kpiPageSchema>;

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
export const measurementPageSchema = pageOf(measurementSchema);
export type MeasurementPage = z.output<typeof measurementPageSchema>;

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

/** What management clients see of a key: never the raw key (after creation) nor its hash. */
export const apiKeySchema = z.object({
  id,
  name: z.string(),
  prefix: z.string(),
  status: z.enum(['active', 'revoked', 'expired']),
  createdAt: timestamp,
  expiresAt: z.nullable(timestamp),
  lastUsedAt: z.nullable(timestamp),
  revokedAt: z.nullable(timestamp),
});
export const apiKeyPageSchema = pageOf(apiKeySchema);
export type ApiKeyPage = z.output<typeof apiKeyPageSchema>;

/** POST /api-keys: the raw key, in this response only (spec 2.7). */
export const createdApiKeySchema = z.object({
  id,
  name: z.string(),
  prefix: z.string(),
  key: z.string(),
  status: z.literal('active'),
  createdAt: timestamp,
  expiresAt: z.nullable(timestamp),
});
export type CreatedApiKeyResponse = z.output<typeof createdApiKeySchema>;

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
});
