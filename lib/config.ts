import { z } from 'zod';

/**
 * Runtime configuration of the Lambda handlers, read from `process.env` once per container.
 * A missing or malformed variable throws here, at cold start, so a misconfigured deployment
 * fails its first invocation loudly instead of answering some requests and not others.
 */
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const configSchema = z.object({
  TABLE_NAME: z.string().min(3),
  /** Set only for DynamoDB Local; on AWS the SDK's regional endpoint is used. */
  DYNAMODB_ENDPOINT: z
    .url()
    .optional()
    .or(z.literal('').transform(() => undefined)),
  AWS_REGION: z.string().min(1).default('eu-central-1'),
  /** HS256 key: RFC 7518 §3.2 requires at least 256 bits, so 32 bytes is the floor. */
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters (RFC 7518 §3.2)'),
  JWT_ISSUER: z.string().min(1).default('strategy-service'),
  JWT_AUDIENCE: z.string().min(1).default('strategy-service-api'),
  REFRESH_TOKEN_TTL_SECONDS: positiveInt(30 * 24 * 3600),
  /** Tenant items are cached per container; the push issue caps staleness at 30 s. */
  TENANT_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(30).default(30),
  /** Push rate limit per API key: requests per fixed window, by plan (issue 5; README "Rate limits"). */
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60),
  RATE_LIMIT_FREE: positiveInt(60),
  RATE_LIMIT_BUSINESS: positiveInt(300),
  RATE_LIMIT_ENTERPRISE: positiveInt(3000),
  /** Login brute-force protection: failures per e-mail within the window before 429. */
  LOGIN_MAX_FAILURES: positiveInt(10),
  LOGIN_LOCKOUT_WINDOW_SECONDS: positiveInt(15 * 60),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const parseConfig = (env: NodeJS.ProcessEnv): Config => {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`, { cause: result.error });
  }
  return result.data;
};
