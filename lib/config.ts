import * as z from 'zod/mini';

/**
 * Runtime configuration of the Lambda handlers, read from `process.env` once per container.
 * A missing or malformed variable throws here, at cold start, so a misconfigured deployment
 * fails its first invocation loudly instead of answering some requests and not others.
 */
const positiveInt = (fallback: number) =>
  z._default(z.coerce.number().check(z.int(), z.positive()), fallback);

export const configSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(3)),
  /** Set only for DynamoDB Local; on AWS the SDK's regional endpoint is used. */
  DYNAMODB_ENDPOINT: z.union([
    z.optional(z.url()),
    z.pipe(
      z.literal(''),
      z.transform(() => undefined),
    ),
  ]),
  AWS_REGION: z._default(z.string().check(z.minLength(1)), 'eu-central-1'),
  /** HS256 key: RFC 7518 §3.2 requires at least 256 bits, so 32 bytes is the floor. */
  JWT_SECRET: z.string().check(z.minLength(32, 'JWT_SECRET must be at least 32 characters (RFC 7518 §3.2)')),
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
  return result.data;
};
