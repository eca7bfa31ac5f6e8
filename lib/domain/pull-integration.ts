import * as z from 'zod/mini';
import { kpiTypeSchema } from './kpi';
import { id, timestamp } from './values';

/**
 * A pull integration: one HTTP source that the service fetches on a schedule, and the KPI values it
 * reads out of each answer with JMESPath (lib/pull/). Its secrets (a bearer token, a header value, a
 * password, an OAuth client secret) are not part of the entity: they are written once, stored only
 * sealed (lib/pull/secrets.ts), and shown as `{ "set": true }`.
 */

export const MAX_PULL_NAME_LENGTH = 100;
export const MAX_PULL_URL_LENGTH = 2048;
export const MAX_PULL_HEADERS = 10;
export const MAX_PULL_BINDINGS = 50;
/** Longer than any reasonable path into an answer; short enough to keep an item far below 400 KB. */
export const MAX_EXPRESSION_LENGTH = 500;

export const PULL_EVERY = ['15m', 'hour', 'day', 'week', 'month'] as const;
export type PullEvery = (typeof PULL_EVERY)[number];
/** The units whose slot has a time of day (`at`, UTC). */
export const TIMED_EVERY: readonly PullEvery[] = ['day', 'week', 'month'];

export const PULL_PERIOD_UNITS = ['day', 'week', 'month', 'quarter'] as const;

export const PULL_STATUSES = ['active', 'failing', 'disabled'] as const;

export const RUN_OUTCOMES = ['stored', 'partial', 'failed'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** Why a fetch gave no usable answer; never the body, never a secret. */
export const RUN_ERROR_CLASSES = [
  'timeout',
  'connection',
  'http_status',
  'not_json',
  'too_large',
  'auth',
] as const;
export type RunErrorClass = (typeof RUN_ERROR_CLASSES)[number];

export const RUN_TRIGGERS = ['schedule', 'manual'] as const;

const TIMESTAMP = 'ISO 8601 date-time, UTC.';

/** `HH:MM`, UTC. */
export const timeOfDay = z
  .string()
  .check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM (UTC), e.g. 06:30'));

export const pullScheduleSchema = z
  .strictObject({
    every: z
      .enum(PULL_EVERY, { message: `must be one of ${PULL_EVERY.join(', ')}` })
      .check(
        z.describe(
          'How often: every quarter hour (`15m`: :00, :15, :30, :45), each hour at :00, each day, each week (Mondays) or each month (the 1st).',
        ),
      ),
    at: z.optional(
      timeOfDay.check(
        z.describe('The time of day (UTC) of a `day`, `week` or `month` schedule; default 00:00.'),
      ),
    ),
  })
  // `at` only with day, week and month: checked by the use cases (lib/pull/service.ts), so that the
  // schema stays a plain object the OpenAPI document can refer to with a description.
  .check(z.meta({ id: 'PullSchedule', description: 'When the source is fetched (UTC).' }));
export type PullSchedule = z.output<typeof pullScheduleSchema>;

const expression = (description: string) =>
  z
    .string()
    .check(
      z.minLength(1, 'must be a JMESPath expression'),
      z.maxLength(MAX_EXPRESSION_LENGTH, `must have at most ${MAX_EXPRESSION_LENGTH} characters`),
      z.describe(description),
    );

export const pullPeriodSchema = z
  .union([
    z.enum(PULL_PERIOD_UNITS, { message: `must be one of ${PULL_PERIOD_UNITS.join(', ')}` }),
    z.strictObject({
      start: expression(
        'JMESPath to the period’s first day (`YYYY-MM-DD`, or a date-time whose UTC day counts).',
      ),
      end: expression('JMESPath to the period’s last day.'),
    }),
  ])
  .check(
    z.meta({
      id: 'PullPeriod',
      description:
        'Which period a fetched value stands for: the current UTC `day`, ISO `week` (Monday to Sunday), `month` or `quarter` at the run, or the period read from the answer.',
    }),
  );
export type PullPeriod = z.output<typeof pullPeriodSchema>;

export const pullBindingSchema = z
  .strictObject({
    kpiId: id.check(z.describe('A KPI of the tenant (`GET /kpis`); checked at creation and at every run.')),
    kpiType: kpiTypeSchema.check(z.describe('The KPI’s type; must match the KPI.')),
    actual: expression('JMESPath to the actual value: a number.'),
    target: z.optional(expression('JMESPath to the target value; none when absent.')),
    forecast: z.optional(expression('JMESPath to the forecast value; none when absent.')),
  })
  .check(
    z.meta({
      id: 'PullBinding',
      description: 'One KPI fed by the answer: where its values are in it (JMESPath).',
    }),
  );
export type PullBinding = z.output<typeof pullBindingSchema>;

/** A write-only secret as every answer shows it. */
export const secretSetSchema = z
  .object({ set: z.literal(true) })
  .check(z.meta({ id: 'SecretSet', description: 'A secret that is stored (write-only: never shown).' }));
const SET = secretSetSchema;

/** How the source authenticates the request, as every answer shows it: the secrets only as set. */
export const pullAuthViewSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('none') }),
    z.object({ type: z.literal('bearer'), token: SET }),
    z.object({ type: z.literal('header'), name: z.string(), value: SET }),
    z.object({ type: z.literal('basic'), username: z.string(), password: SET }),
    z.object({
      type: z.literal('oauth2_client_credentials'),
      tokenUrl: z
        .string()
        .check(z.describe('The token endpoint; query values `[redacted]` for other roles than ADMIN.')),
      clientId: z.string(),
      clientSecret: SET,
      scope: z.nullable(z.string()),
    }),
  ])
  .check(z.meta({ id: 'PullAuth', description: 'The endpoint authentication; secrets are write-only.' }));
export type PullAuthView = z.output<typeof pullAuthViewSchema>;

/** The secret fields of each authentication type, as sealed together (lib/pull/secrets.ts). */
export interface PullSecrets {
  token?: string;
  value?: string;
  password?: string;
  clientSecret?: string;
}

export const runSummarySchema = z
  .object({
    id,
    startedAt: timestamp.check(z.describe(TIMESTAMP)),
    durationMs: z.int(),
    httpStatus: z.nullable(z.int()),
    outcome: z.enum(RUN_OUTCOMES),
    errorClass: z.nullable(z.enum(RUN_ERROR_CLASSES)),
  })
  .check(z.meta({ id: 'PullRunSummary', description: 'The last run, in short (`GET …/runs` has it all).' }));

export const pullCreatorSchema = z.object({ type: z.literal('user'), userId: z.string() });

export const pullIntegrationSchema = z.object({
  id,
  tenantId: id,
  name: z.string(),
  url: z
    .string()
    .check(
      z.describe(
        'The address fetched with GET. Only ADMINs see it as stored; other roles see the value of every query parameter as `[redacted]`.',
      ),
    ),
  headers: z
    .record(z.string(), z.string())
    .check(z.describe('Request headers sent with every fetch (not secret: shown as stored).')),
  auth: pullAuthViewSchema,
  schedule: pullScheduleSchema,
  period: pullPeriodSchema,
  bindings: z.array(pullBindingSchema),
  status: z
    .enum(PULL_STATUSES)
    .check(
      z.describe(
        '`active`; `failing` after 3 failed runs in a row (it backs off); `disabled` after 24 hours of failures: it runs again after a PATCH or a successful manual run.',
      ),
    ),
  consecutiveFailures: z.int().check(z.describe('Failed runs in a row; 0 after a run that stored.')),
  failingSince: z
    .nullable(timestamp)
    .check(z.describe(`The first failed run of the current streak; \`null\` without one. ${TIMESTAMP}`)),
  disabledAt: z.nullable(timestamp).check(z.describe(`When it was disabled; \`null\` = not. ${TIMESTAMP}`)),
  lastRun: z.nullable(runSummarySchema),
  nextRunAt: z
    .nullable(timestamp)
    .check(z.describe(`When the scheduler runs it next; \`null\` while disabled. ${TIMESTAMP}`)),
  createdAt: timestamp.check(z.describe(TIMESTAMP)),
  createdBy: z.nullable(pullCreatorSchema),
  updatedAt: timestamp.check(z.describe(TIMESTAMP)),
});
export type PullIntegration = z.output<typeof pullIntegrationSchema>;

export const BINDING_RESULTS = ['created', 'updated', 'failed'] as const;

/** What one binding read from an answer: its values and period, or why it gave none. */
export const bindingValuesSchema = z.object({
  kpiId: id,
  kpiType: kpiTypeSchema,
  periodStart: z.nullable(z.string()),
  periodEnd: z.nullable(z.string()),
  actual: z.nullable(z.number()),
  target: z.nullable(z.number()),
  forecast: z.nullable(z.number()),
  problem: z
    .nullable(z.string())
    .check(z.describe('Why the binding gives nothing to store; `null` when it does.')),
});

/** What one binding gave in a run: the values written, or why none. */
export const runBindingSchema = z
  .extend(bindingValuesSchema, {
    result: z.enum(BINDING_RESULTS).check(z.describe('`created` or `updated` a measurement, or `failed`.')),
  })
  .check(z.meta({ id: 'PullRunBinding', description: 'One binding’s result in a run.' }));
export type RunBinding = z.output<typeof runBindingSchema>;

export const pullRunSchema = z.object({
  id,
  integrationId: id,
  tenantId: id,
  trigger: z.enum(RUN_TRIGGERS).check(z.describe('`schedule`, or `manual` (`POST …/run`).')),
  startedAt: timestamp.check(z.describe(TIMESTAMP)),
  durationMs: z.int().check(z.describe('From the first request to the last write.')),
  httpStatus: z.nullable(z.int()).check(z.describe('The source’s status; `null` without an answer.')),
  outcome: z
    .enum(RUN_OUTCOMES)
    .check(
      z.describe('`stored`: every binding; `partial`: some bindings failed; `failed`: nothing was stored.'),
    ),
  errorClass: z
    .nullable(z.enum(RUN_ERROR_CLASSES))
    .check(z.describe('Why the fetch gave no usable answer; `null` when it did.')),
  error: z
    .nullable(z.string())
    .check(z.describe('The error in words, never the body or a secret; `null` without one.')),
  measurementsStored: z.int(),
  bindings: z.array(runBindingSchema),
});
export type PullRun = z.output<typeof pullRunSchema>;
