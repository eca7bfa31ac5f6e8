import * as z from 'zod/mini';

/**
 * Runtime configuration of the Lambda handlers, read from `process.env` once per container.
 * A missing or malformed variable throws here, at cold start, so a misconfigured deployment
 * fails its first invocation loudly instead of answering some requests and not others.
 */
const positiveInt = (fallback: number) =>
  z._default(z.coerce.number().check(z.int(), z.positive()), fallback);

/** An unset variable or an empty one (a stage that passes "") is absent. */
const optionalString = <T extends z.ZodMiniType<string | undefined>>(schema: T) =>
  z.union([
    z.pipe(
      z.literal(''),
      z.transform(() => undefined),
    ),
    z.optional(schema),
  ]);

/** RFC 6454 origins (scheme, host, optional port; no path, no trailing slash), comma-separated. */
const ORIGIN = 'https?://[A-Za-z0-9.-]+(?::\\d{1,5})?';
const ORIGIN_LIST = new RegExp(`^(?:\\s*${ORIGIN}\\s*(?:,\\s*${ORIGIN}\\s*)*)?$`);

/** The allowed CORS origins as a list. */
export const corsOrigins = (config: Pick<Config, 'CORS_ALLOWED_ORIGINS'>): string[] =>
  config.CORS_ALLOWED_ORIGINS.split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);

export const configSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(3)),
  /** Set only for DynamoDB Local; on AWS the client's regional endpoint (dynamodb.<region>.amazonaws.com). */
  DYNAMODB_ENDPOINT: z.union([
    z.optional(z.url()),
    z.pipe(
      z.literal(''),
      z.transform(() => undefined),
    ),
  ]),
  AWS_REGION: z._default(z.string().check(z.minLength(1)), 'eu-central-1'),
  /**
   * The HS256 key itself: only the local stack and tests. RFC 7518 §3.2 requires at least 256 bits, so
   * 32 bytes is the floor. Several keys, one per line, for a rotation: the first signs, all verify.
   */
  JWT_SECRET: optionalString(
    z.string().check(z.minLength(32, 'JWT_SECRET must be at least 32 characters (RFC 7518 §3.2)')),
  ),
  /**
   * On AWS (issue 14): the name of the SSM SecureString parameter holding the key, read at the first
   * request of a container and cached; never the key in the environment.
   */
  JWT_SECRET_PARAMETER: optionalString(
    z.string().check(z.regex(/^\/[\w./-]+$/, 'JWT_SECRET_PARAMETER must be a parameter name such as /a/b')),
  ),
  /** How long a container uses the key it read before reading it again (a rotation's propagation time). */
  JWT_KEY_MAX_AGE_SECONDS: positiveInt(300),
  /**
   * Browser origins allowed to call the JWT endpoints (issue 14), comma-separated RFC 6454 origins
   * (scheme, host, optional port; no path); empty: none. `corsOrigins()` splits it.
   */
  CORS_ALLOWED_ORIGINS: z._default(
    z
      .string()
      .check(
        z.regex(
          ORIGIN_LIST,
          'CORS_ALLOWED_ORIGINS must be comma-separated origins like https://app.example.com',
        ),
      ),
    '',
  ),
  JWT_ISSUER: z._default(z.string().check(z.minLength(1)), 'strategy-service'),
  JWT_AUDIENCE: z._default(z.string().check(z.minLength(1)), 'strategy-service-api'),
  REFRESH_TOKEN_TTL_SECONDS: positiveInt(30 * 24 * 3600),
  /** Tenant items are cached per container; the push issue caps staleness at 30 s. */
  TENANT_CACHE_TTL_SECONDS: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(30)), 30),
  /** Push rate limit per API key: requests per fixed window, by plan (issue 5; README "Rate limits"). */
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60),
  RATE_LIMIT_FREE: positiveInt(60),
  RATE_LIMIT_BUSINESS: positiveInt(300),
  RATE_LIMIT_ENTERPRISE: positiveInt(3000),
  /** Login brute-force protection: failures per e-mail within the window before 429. */
  LOGIN_MAX_FAILURES: positiveInt(10),
  LOGIN_LOCKOUT_WINDOW_SECONDS: positiveInt(15 * 60),
});

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const parseConfig = (env: NodeJS.ProcessEnv): Config => {
  const result = z.safeParse(configSchema, env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`, { cause: result.error });
  }
  const { JWT_SECRET, JWT_SECRET_PARAMETER } = result.data;
  if ((JWT_SECRET === undefined) === (JWT_SECRET_PARAMETER === undefined)) {
    throw new ConfigError(
      'Invalid configuration: set exactly one of JWT_SECRET (local stack, tests) and JWT_SECRET_PARAMETER (AWS).',
    );
  }
  return result.data;
};
