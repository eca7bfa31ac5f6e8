/**
 * Runtime configuration of the Lambda handlers, read from `process.env` once per container.
 * A missing or malformed variable throws here, at cold start, so a misconfigured deployment
 * fails its first invocation loudly instead of answering some requests and not others.
 *
 * Parsed by hand rather than with zod (issue 11): every function loads this, and the zod schemas it
 * took (url, coerce, regex, union, pipe) were 5 KB of each bundle, most of them in no other schema.
 * Each variable is a small parser: it returns the value or throws a message naming what is wrong.
 */
type Parser<T> = (value: string | undefined, name: string) => T;

class Invalid extends Error {}

const int =
  (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> =>
  (value, name) => {
    if (value === undefined) return fallback;
    const number = Number(value);
    if (!Number.isInteger(number) || number < min || number > max) {
      throw new Invalid(
        `${name} must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}`,
      );
    }
    return number;
  };

/** A positive whole number, e.g. seconds or a count. */
const positiveInt = (fallback: number) => int(fallback, 1);

const text =
  (fallback: string | undefined, check?: (value: string) => string | undefined): Parser<string> =>
  (value, name) => {
    const result = value ?? fallback;
    if (result === undefined || result.length === 0) throw new Invalid(`${name} is required`);
    const problem = check?.(result);
    if (problem) throw new Invalid(problem);
    return result;
  };

/** An unset variable or an empty one (a stage that passes "") is absent. */
const optional =
  <T>(parser: Parser<T>): Parser<T | undefined> =>
  (value, name) =>
    value === undefined || value === '' ? undefined : parser(value, name);

const isUrl = (value: string) => {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
};

/** RFC 6454 origins (scheme, host, optional port; no path, no trailing slash), comma-separated. */
const ORIGIN = 'https?://[A-Za-z0-9.-]+(?::\\d{1,5})?';
const ORIGIN_LIST = new RegExp(`^(?:\\s*${ORIGIN}\\s*(?:,\\s*${ORIGIN}\\s*)*)?$`);

/** The allowed CORS origins as a list. */
export const corsOrigins = (config: Pick<Config, 'CORS_ALLOWED_ORIGINS'>): string[] =>
  config.CORS_ALLOWED_ORIGINS.split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);

const variables = {
  TABLE_NAME: text(undefined, (value) =>
    value.length < 3 ? 'TABLE_NAME must be at least 3 characters' : undefined,
  ),
  /** Set only for DynamoDB Local; on AWS the client's regional endpoint (dynamodb.<region>.amazonaws.com). */
  DYNAMODB_ENDPOINT: optional(
    text(undefined, (value) => (isUrl(value) ? undefined : 'DYNAMODB_ENDPOINT must be a URL')),
  ),
  AWS_REGION: text('eu-central-1'),
  /**
   * The HS256 key itself: only the local stack and tests. RFC 7518 §3.2 requires at least 256 bits, so
   * 32 bytes is the floor. Several keys, one per line, for a rotation: the first signs, all verify.
   */
  JWT_SECRET: optional(
    text(undefined, (value) =>
      value.length < 32 ? 'JWT_SECRET must be at least 32 characters (RFC 7518 §3.2)' : undefined,
    ),
  ),
  /**
   * On AWS (issue 14): the name of the SSM SecureString parameter holding the key, read at the first
   * request of a container and cached; never the key in the environment.
   */
  JWT_SECRET_PARAMETER: optional(
    text(undefined, (value) =>
      /^\/[\w./-]+$/.test(value) ? undefined : 'JWT_SECRET_PARAMETER must be a parameter name such as /a/b',
    ),
  ),
  /** How long a container uses the key it read before reading it again (a rotation's propagation time). */
  JWT_KEY_MAX_AGE_SECONDS: positiveInt(300),
  /**
   * Browser origins allowed to call the JWT endpoints (issue 14), comma-separated RFC 6454 origins
   * (scheme, host, optional port; no path); empty: none. `corsOrigins()` splits it.
   */
  CORS_ALLOWED_ORIGINS: ((value, name) => {
    const list = value ?? '';
    if (!ORIGIN_LIST.test(list)) {
      throw new Invalid(`${name} must be comma-separated origins like https://app.example.com`);
    }
    return list;
  }) as Parser<string>,
  JWT_ISSUER: text('strategy-service'),
  JWT_AUDIENCE: text('strategy-service-api'),
  REFRESH_TOKEN_TTL_SECONDS: positiveInt(30 * 24 * 3600),
  /** Tenant items are cached per container; the push issue caps staleness at 30 s. */
  TENANT_CACHE_TTL_SECONDS: int(30, 0, 30),
  /** Push rate limit per API key: requests per fixed window, by plan (issue 5; README "Rate limits"). */
  RATE_LIMIT_WINDOW_SECONDS: positiveInt(60),
  RATE_LIMIT_FREE: positiveInt(60),
  RATE_LIMIT_BUSINESS: positiveInt(300),
  RATE_LIMIT_ENTERPRISE: positiveInt(3000),
  /** Login brute-force protection: failures per e-mail within the window before 429. */
  LOGIN_MAX_FAILURES: positiveInt(10),
  LOGIN_LOCKOUT_WINDOW_SECONDS: positiveInt(15 * 60),
} satisfies Record<string, Parser<unknown>>;

export type Config = { [Name in keyof typeof variables]: ReturnType<(typeof variables)[Name]> };

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const parseConfig = (env: NodeJS.ProcessEnv): Config => {
  const problems: string[] = [];
  const config: Record<string, unknown> = {};
  for (const [name, parse] of Object.entries(variables)) {
    try {
      config[name] = (parse as Parser<unknown>)(env[name], name);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  const { JWT_SECRET, JWT_SECRET_PARAMETER } = config as Config;
  if ((JWT_SECRET === undefined) === (JWT_SECRET_PARAMETER === undefined)) {
    throw new ConfigError(
      'Invalid configuration: set exactly one of JWT_SECRET (local stack, tests) and JWT_SECRET_PARAMETER (AWS).',
    );
  }
  return config as Config;
};
