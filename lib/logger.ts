import { Logger } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';

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

/** Security-relevant events (docs/operations.md, Logs): who did what to which tenant, never a secret. */
export type AuditEvent =
  | 'login.succeeded'
  | 'login.failed'
  | 'login.locked'
  | 'login.source-locked'
  | 'login.ceiling-reached'
  | 'logout'
  | 'sessions.revoked'
  | 'api_key.created'
  | 'api_key.rolled'
  | 'api_key.updated'
  | 'api_key.revoked'
  | 'api_key.leaked'
  | 'kpi.updated'
  | 'webhook.created'
  | 'webhook.deleted'
  | 'webhook.disabled'
  | 'integration.created'
  | 'integration.updated'
  | 'integration.deleted'
  | 'integration.run'
  | 'integration.disabled';

/**
 * One audit line: `{"message":"audit","audit":"<event>", ...fields}`, at info level, with the request's
 * correlation id and tenant like every other line, so CloudWatch Logs Insights can list them with
 * `filter ispresent(audit)`.
 */
export const audit = (
  event: AuditEvent,
  fields: Record<string, string | number | boolean | null | undefined>,
) => logger.info('audit', { audit: event, ...fields });
