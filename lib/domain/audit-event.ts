import * as z from 'zod/mini';
import { uuidv7 } from '../ids';
import { id, timestamp } from './values';

/**
 * Audit events: who did what to which resource of a tenant, from where. Every event is a log line
 * (lib/logger.ts), and every event that names a tenant is also stored as an item of that tenant
 * (lib/db/audit-events.ts), which the tenant's ADMINs read with `GET /audit-events`. An event never
 * holds a secret, a raw key, a password or a full URL a tenant chose (only its origin and a hash of
 * the rest, as `urlForLog` gives them).
 */

export const AUDIT_EVENT_TYPES = [
  'login.succeeded',
  'login.failed',
  'login.locked',
  'login.source-locked',
  'login.ceiling-reached',
  'logout',
  'sessions.revoked',
  'api_key.created',
  'api_key.rolled',
  'api_key.updated',
  'api_key.revoked',
  'api_key.leaked',
  'kpi.created',
  'kpi.updated',
  'kpi.archived',
  'kpi.restored',
  'kpi.targets_set',
  'cycle.created',
  'cycle.updated',
  'cycle.deleted',
  'webhook.created',
  'webhook.deleted',
  'webhook.disabled',
  'integration.created',
  'integration.updated',
  'integration.deleted',
  'integration.run',
  'integration.disabled',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/**
 * Who acted: a signed-in user, an API key, the service itself (`system`: a worker, by its name, or an
 * operator through the operator CLI, `operator:<name>`), or GitHub's secret scanning, which reports
 * keys found in public.
 */
export const AUDIT_ACTOR_TYPES = ['user', 'api_key', 'system', 'github_secret_scanning'] as const;
export const AUDIT_TARGET_TYPES = ['user', 'api_key', 'kpi', 'webhook', 'integration', 'cycle'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

const TIMESTAMP = 'ISO 8601 date-time, UTC.';

export const auditActorSchema = z
  .object({
    type: z.enum(AUDIT_ACTOR_TYPES),
    id: z
      .string()
      .check(
        z.describe(
          'The user’s or key’s id; for `system` what acted (`webhook-delivery`, `pull-scheduler`, `operator:<name>`); `github` for secret scanning.',
        ),
      ),
    email: z.optional(
      z
        .nullable(z.string())
        .check(z.describe('A user’s e-mail when the event happened; `null` when it was not known.')),
    ),
  })
  .check(z.meta({ id: 'AuditEventActor', description: 'Who acted.' }));
export type AuditActor = z.output<typeof auditActorSchema>;

export const auditTargetSchema = z
  .object({
    type: z.enum(AUDIT_TARGET_TYPES),
    id: z.string().check(z.describe('The id of the key, KPI, webhook endpoint, integration or user.')),
  })
  .check(z.meta({ id: 'AuditEventTarget', description: 'What the event is about.' }));
export type AuditTarget = z.output<typeof auditTargetSchema>;

export const auditSourceSchema = z
  .object({
    ip: z.string().check(z.describe('The client’s address, as API Gateway saw it.')),
    userAgent: z.nullable(z.string()).check(z.describe('The client’s User-Agent; `null` when it sent none.')),
  })
  .check(z.meta({ id: 'AuditEventSource', description: 'Where the request came from.' }));
export type AuditSource = z.output<typeof auditSourceSchema>;

/** A value of an event's details: never a secret, a raw key, a password or a full tenant URL. */
const detailValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]);
export type AuditDetails = Record<string, z.output<typeof detailValue>>;

export const auditEventSchema = z
  .object({
    id: id.check(z.describe('The event’s id (UUIDv7: ordered by time).')),
    at: timestamp.check(z.describe(`When it happened. ${TIMESTAMP}`)),
    type: z.enum(AUDIT_EVENT_TYPES),
    actor: auditActorSchema,
    target: auditTargetSchema,
    source: z
      .nullable(auditSourceSchema)
      .check(z.describe('Where the request came from; `null` for what the service did on its own.')),
    requestId: z
      .nullable(z.string())
      .check(
        z.describe(
          'The request’s id (its `X-Request-Id`, in every log line of it); `null` without a request.',
        ),
      ),
    details: z
      .record(z.string(), detailValue)
      .check(
        z.describe(
          'What the event type says about the change (docs/api.md, "Audit log"); never a secret, a raw key, a password or a full URL.',
        ),
      ),
  })
  .check(z.meta({ id: 'AuditEvent', description: 'One audit event of the caller’s tenant.' }));
export type AuditEventView = z.output<typeof auditEventSchema>;

/** An event with the tenant it belongs to; null for one that names no tenant (logged only). */
export type AuditEvent = AuditEventView & { tenantId: string | null };

/**
 * Where a change came from, as the request shows it: its source and id. A change the service makes on
 * its own (a worker) has neither.
 */
export interface RequestOrigin {
  source: AuditSource | null;
  requestId: string | null;
}

/** Who makes a change, and from where: what every audited use case receives. */
export interface AuditContext extends RequestOrigin {
  actor: AuditActor;
}

/** The service acting on its own (a worker, a schedule), by its name. */
export const systemContext = (name: string): AuditContext => ({
  actor: { type: 'system', id: name },
  source: null,
  requestId: null,
});

/** An operator acting through the operator CLI (scripts/admin.ts), by their name. */
export const operatorContext = (name: string): AuditContext => systemContext(`operator:${name}`);

/** An event of a tenant: what the service stores (lib/db/audit-events.ts). */
export type TenantAuditEvent = AuditEventView & { tenantId: string };

/** No request: what the service does on its own, and what tests and scripts do through the library. */
export const NO_REQUEST: RequestOrigin = { source: null, requestId: null };

/** A new event: what happened, to what, with what details, in the context's name. */
export const auditEvent = <T extends string | null>(
  context: AuditContext,
  event: {
    type: AuditEventType;
    tenantId: T;
    target: AuditTarget;
    details?: AuditDetails;
  },
  now = Date.now(),
): AuditEventView & { tenantId: T } => ({
  id: uuidv7(now),
  at: new Date(now).toISOString(),
  type: event.type,
  tenantId: event.tenantId,
  actor: context.actor,
  target: event.target,
  source: context.source,
  requestId: context.requestId,
  details: event.details ?? {},
});
