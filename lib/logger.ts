import { Logger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';
import type { AuditEvent, AuditEventType, AuditTargetType } from './domain/audit-event';

/**
 * Structured JSON logs through Powertools Logger (the ecosystem's standard): level, message,
 * timestamp, service, cold start, function name and Lambda request id on every line, plus the keys a
 * request appends (`correlation_id` = the API Gateway request id sent back as `X-Request-Id`, and the
 * tenant, user or API key prefix once known). `LOG_LEVEL` (`debug`, `info`, `warn`, `error`, `silent`)
 * sets the level; the test suites run with `silent`.
 *
 * Never log request headers or bodies wholesale: they carry passwords, tokens and API keys. Callers
 * pass explicit fields; API keys appear only as their 8-character identification prefix (spec 2.7).
 */
export const SERVICE_NAME = 'strategy-service';

// Powertools reads LOG_LEVEL only in upper case; the project's documented values are lower case.
export const logger = new Logger({
  serviceName: SERVICE_NAME,
  logLevel: (process.env.LOG_LEVEL ?? 'info').toUpperCase() as LogLevel,
});

/**
 * Audit lines (docs/operations.md, Logs): who did what to which tenant, never a secret. One line per
 * event, `{"message":"audit","audit":"<type>", ...fields}`, at info level, with the request's
 * correlation id and tenant like every other line, so CloudWatch Logs Insights lists them with
 * `filter ispresent(audit)`.
 */
export const audit = (
  event: AuditEventType,
  fields: Record<string, string | number | boolean | null | undefined>,
) => logger.info('audit', { audit: event, ...fields });

/** The field of an audit line that names an event's target, by the target's type. */
const TARGET_FIELDS: Record<AuditTargetType, string> = {
  user: 'userId',
  api_key: 'keyId',
  kpi: 'kpiId',
  webhook: 'webhookId',
  integration: 'integrationId',
  cycle: 'cycleId',
};

/**
 * The audit line of an event the service stores (lib/db/audit-events.ts), written once the event is:
 * its id (the stored event's), tenant, actor, target, source address and details.
 */
export const logAuditEvent = ({ type, id, tenantId, actor, target, source, details }: AuditEvent) =>
  audit(type, {
    eventId: id,
    ...(tenantId ? { tenantId } : {}),
    actorType: actor.type,
    actorId: actor.id,
    ...(actor.email ? { email: actor.email } : {}),
    [TARGET_FIELDS[target.type]]: target.id,
    ...(source ? { sourceIp: source.ip } : {}),
    ...Object.fromEntries(
      Object.entries(details).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]),
    ),
  });
