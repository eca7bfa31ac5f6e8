import * as z from 'zod/mini';

/**
 * Runtime configuration of the Lambda handlers, read from `process.env` once per container.
 * A missing or malformed variable throws here, at cold start, so a misconfigured deployment
 * fails its first invocation loudly instead of answering some requests and not others.
 *
 * Each message below says what is wrong; `parseConfig` puts the variable's name (the issue's path)
 * in front of it, so the schema never repeats a name.
 */
const required = () =>
  z.string({ error: 'is required' }).check(z.minLength(1, { error: 'is required', abort: true }));

/** Text with a default when unset; set but empty is an error (a stage that passes "" means a mistake). */
const text = (fallback: string) => z._default(required(), fallback);

/** An unset variable or an empty one (a stage that passes "") is absent. */
const optional = <T extends z.core.SomeType>(schema: T) =>
  z.pipe(
    z.transform((value: unknown) => (value === '' ? undefined : value)),
    z.optional(schema),
  );

/** A whole number within bounds, from its string; unset gives the default. */
const wholeNumber = (fallback: number, min: number, max?: number) => {
  const error = `must be a whole number from ${min}${max === undefined ? '' : ` to ${max}`}`;
  return z._default(
    z.coerce
      .number({ error })
      .check(z.int({ error }), z.gte(min, { error }), ...(max === undefined ? [] : [z.lte(max, { error })])),
    fallback,
  );
};

/** A positive whole number, e.g. seconds or a count. */
const positiveInt = (fallback: number) => wholeNumber(fallback, 1);

/** RFC 6454 origins (scheme, host, optional port; no path, no trailing slash), comma-separated. */
const ORIGIN = 'https?://[A-Za-z0-9.-]+(?::\\d{1,5})?';
/** A setting of allowed origins; the deployment's CORS template (scripts/cors.cjs) checks it too. */
export const ORIGIN_LIST = new RegExp(`^(?:\\s*${ORIGIN}\\s*(?:,\\s*${ORIGIN}\\s*)*)?$`);

/** GitHub's published secret-scanning public keys (its secret scanning partner program). */
export const GITHUB_SECRET_SCANNING_KEYS_URL = 'https://api.github.com/meta/public_keys/secret_scanning';

const environment = z
  .object({
    TABLE_NAME: required().check(z.minLength(3, 'must be at least 3 characters')),
    /** Set only for DynamoDB Local; on AWS the client's regional endpoint (dynamodb.<region>.amazonaws.com). */
    DYNAMODB_ENDPOINT: optional(z.url({ error: 'must be a URL' })),
    AWS_REGION: text('eu-central-1'),
    /**
     * The HS256 key itself: only the local stack and tests. RFC 7518 §3.2 requires at least 256 bits, so
     * 32 bytes is the floor. Several keys, one per line, for a rotation: the first signs, all verify.
     */
    JWT_SECRET: optional(z.string().check(z.minLength(32, 'must be at least 32 characters (RFC 7518 §3.2)'))),
    /**
     * On AWS: the name of the SSM SecureString parameter holding the key, read at the first request of a
     * container and cached; never the key in the environment.
     */
    JWT_SECRET_PARAMETER: optional(
      z.string().check(z.regex(/^\/[\w./-]+$/, 'must be a parameter name such as /a/b')),
    ),
    /**
     * The key that seals the secrets tenants give the service (webhook signing secrets, the credentials
     * of pull integrations): a key of its own, never derived from the JWT key, so rotating one neither
     * breaks nor exposes the other. Only the local stack and tests have it here (at least 32 characters;
     * several lines for a rotation: the first seals, all open); on AWS SECRETS_KEY_PARAMETER names the
     * SSM SecureString that holds it.
     */
    SECRETS_KEY: optional(z.string().check(z.minLength(32, 'must be at least 32 characters'))),
    SECRETS_KEY_PARAMETER: optional(
      z.string().check(z.regex(/^\/[\w./-]+$/, 'must be a parameter name such as /a/b')),
    ),
    /** How long a container uses the key it read before reading it again (a rotation's propagation time). */
    JWT_KEY_MAX_AGE_SECONDS: positiveInt(300),
    /**
     * Browser origins allowed to call the JWT endpoints, comma-separated RFC 6454 origins (scheme, host,
     * optional port; no path); empty: none. `corsOrigins()` splits it.
     */
    CORS_ALLOWED_ORIGINS: z._default(
      z.string().check(z.regex(ORIGIN_LIST, 'must be comma-separated origins like https://app.example.com')),
      '',
    ),
    JWT_ISSUER: text('strategy-service'),
    JWT_AUDIENCE: text('strategy-service-api'),
    REFRESH_TOKEN_TTL_SECONDS: positiveInt(30 * 24 * 3600),
    /**
     * How long a container trusts what it read of a session (user, tenant, session) for the JWT routes:
     * a logout, a revocation, a demotion or a disabled user ends access within this time. At most 60 s
     * (lib/auth/session-guard.ts); 0 reads it on every request.
     */
    SESSION_CACHE_TTL_SECONDS: wholeNumber(30, 0, 60),
    /** Tenant items are cached per container; the push interface caps staleness at 30 s. */
    TENANT_CACHE_TTL_SECONDS: wholeNumber(30, 0, 30),
    /** Push rate limit per API key: requests per fixed window, by plan (docs/api.md, Rate limits). */
    RATE_LIMIT_WINDOW_SECONDS: positiveInt(60),
    RATE_LIMIT_FREE: positiveInt(60),
    RATE_LIMIT_BUSINESS: positiveInt(300),
    RATE_LIMIT_ENTERPRISE: positiveInt(3000),
    /** How long a tenant's audit events are kept (their `ttl`), in days: the stage's `auditRetentionDays`. */
    AUDIT_RETENTION_DAYS: positiveInt(400),
    /**
     * Login brute-force protection (lib/auth/login-throttle.ts), each within the window: failures per
     * e-mail from one source address before that source gets 429; failures from one source address
     * over all e-mails; failures per e-mail over all sources, the ceiling that alarms and past which
     * only devices that signed in before get in at once.
     */
    LOGIN_MAX_FAILURES: positiveInt(10),
    LOGIN_MAX_FAILURES_PER_SOURCE: positiveInt(100),
    LOGIN_FAILURE_CEILING_PER_EMAIL: positiveInt(1000),
    LOGIN_LOCKOUT_WINDOW_SECONDS: positiveInt(15 * 60),
    /**
     * Past the ceiling, the attempts per minute, over all sources, of devices without a device token of
     * the account (lib/auth/login-throttle.ts): how long a new device of the victim may wait.
     */
    LOGIN_NEW_DEVICE_ATTEMPTS_PER_MINUTE: positiveInt(10),
    /**
     * Where GitHub publishes the public keys that sign its secret-scanning reports
     * (functions/github-secret-scanning.ts); tests and the local stack serve keys of their own, over
     * `http:` to this machine. A deployed stage requires `https:` (below): whoever could answer a
     * plain-text fetch of the keys could sign reports that revoke any tenant's keys.
     */
    SECRET_SCANNING_KEYS_URL: z._default(
      z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
      GITHUB_SECRET_SCANNING_KEYS_URL,
    ),
    /**
     * The deployment stage (serverless.yml sets `${sls:stage}`). Only `local` (`npm start`, the tests)
     * lets webhooks use `http://` to this machine (lib/egress/urls.ts); unset counts as a deployed stage.
     */
    STAGE: text('dev').check(z.regex(/^[a-z0-9-]+$/, 'must be a stage name such as prod or local')),
    /**
     * The SQS queue that webhook deliveries go through (its URL). Unset: the local stage's substitute,
     * a queue kept in the table (lib/webhooks/local-queue.ts), which `npm run alerts:run` drains.
     */
    WEBHOOK_QUEUE_URL: optional(z.url({ error: 'must be a URL' })),
    /**
     * The SQS queue through which the scheduler hands due pull integrations to the worker. Unset: the
     * local stage's queue in the table, which `npm run pull:run` drains.
     */
    PULL_QUEUE_URL: optional(z.url({ error: 'must be a URL' })),
  })
  .check(
    // zod skips this rule while a variable is missing or unreadable; those are named first, as before.
    z.refine(
      (config) => (config.JWT_SECRET === undefined) !== (config.JWT_SECRET_PARAMETER === undefined),
      'set exactly one of JWT_SECRET (local stack, tests) and JWT_SECRET_PARAMETER (AWS).',
    ),
    // Unset, the functions that seal or open a tenant's secret fail at that point (lib/runtime.ts).
    z.refine(
      (config) => config.SECRETS_KEY === undefined || config.SECRETS_KEY_PARAMETER === undefined,
      'set at most one of SECRETS_KEY (local stack, tests) and SECRETS_KEY_PARAMETER (AWS).',
    ),
    z.refine(
      (config) => config.STAGE === 'local' || new URL(config.SECRET_SCANNING_KEYS_URL).protocol === 'https:',
      { path: ['SECRET_SCANNING_KEYS_URL'], message: 'must be an https URL outside the local stage' },
    ),
  );

export type Config = z.output<typeof environment>;

/** The allowed CORS origins as a list. */
export const corsOrigins = (config: Pick<Config, 'CORS_ALLOWED_ORIGINS'>): string[] =>
  config.CORS_ALLOWED_ORIGINS.split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const parseConfig = (env: NodeJS.ProcessEnv): Config => {
  const result = environment.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => [...issue.path, issue.message].join(' '));
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
};
