import { type KeyObject, randomUUID } from 'node:crypto';
import { AppError } from '../errors';
import { hmacKey, JwtError, signJwt, verifyJwt } from './jwt';
import type { SecretSource } from './jwt-secret';
import { ROLES, type Role } from './roles';

/** Spec 2.1 and 8: access tokens live 24 hours. */
export const ACCESS_TOKEN_TTL_SECONDS = 86_400;

/**
 * RFC 8725 §3.1: the verifier accepts exactly one algorithm, so `none` or an algorithm swap is refused.
 * §3.11/§3.12: the two kinds of token carry different `typ` headers and `token_use` claims, so one can
 * never be replayed as the other.
 */
const ACCESS_TYP = 'at+jwt'; // RFC 9068 §2.1
const REFRESH_TYP = 'rt+jwt';

export interface UserPrincipal {
  userId: string;
  tenantId: string;
  role: Role;
  email: string;
}

export interface TokenSettings {
  /**
   * The HS256 key text, or a function that reads it (SSM on AWS, issue 14). One key per line, for a
   * rotation without logging everyone out: the first line signs, every line verifies (README, Operations).
   */
  secret: SecretSource;
  issuer: string;
  audience: string;
  refreshTtlSeconds: number;
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * The claims this service puts in its tokens, checked after the signature (lib/auth/jwt.ts). Written
 * out rather than as zod schemas (issue 11): this module is in every function through lib/runtime.ts,
 * and a module-level schema would stay in the bundles that never verify a token.
 */
const accessClaims = (claims: Record<string, unknown>): UserPrincipal | undefined =>
  claims.token_use === 'access' &&
  nonEmpty(claims.sub) &&
  nonEmpty(claims.tenant_id) &&
  nonEmpty(claims.email) &&
  (ROLES as readonly unknown[]).includes(claims.role)
    ? { userId: claims.sub, tenantId: claims.tenant_id, role: claims.role as Role, email: claims.email }
    : undefined;

const refreshClaims = (claims: Record<string, unknown>): { userId: string; tenantId: string } | undefined =>
  claims.token_use === 'refresh' && nonEmpty(claims.sub) && nonEmpty(claims.tenant_id)
    ? { userId: claims.sub, tenantId: claims.tenant_id }
    : undefined;

const invalidToken = (detail: string, cause?: unknown) =>
  new AppError('UNAUTHENTICATED', detail, {
    // RFC 6750 §3: tell the client which scheme to use and why the token failed.
    headers: { 'WWW-Authenticate': `Bearer realm="strategy-service", error="invalid_token"` },
    cause,
  });

export type TokenService = ReturnType<typeof createTokenService>;

/** RFC 7518 §3.2: an HS256 key has at least 256 bits. */
const MIN_KEY_LENGTH = 32;

const parseKeys = (text: string): KeyObject[] => {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  if (lines.length === 0 || lines.some((line) => line.length < MIN_KEY_LENGTH)) {
    // A deployment error, not the caller's: it becomes a 500 and the log names it (never the key).
    throw new Error(`Every JWT key must be at least ${MIN_KEY_LENGTH} characters (RFC 7518 §3.2).`);
  }
  return lines.map((line) => hmacKey(line));
};

export const createTokenService = (settings: TokenSettings) => {
  const { secret } = settings;
  let parsed: { text: string; keys: KeyObject[] } | undefined;
  const signingKeys = async (): Promise<KeyObject[]> => {
    const text = typeof secret === 'string' ? secret : await secret();
    // Stryker disable next-line ConditionalExpression: parsing again gives the same keys; the cache saves work
    if (parsed?.text !== text) parsed = { text, keys: parseKeys(text) };
    return parsed.keys;
  };
  const signingKey = async () => (await signingKeys())[0] as KeyObject;

  const verify = async (token: string, typ: string) => {
    const keys = await signingKeys();
    try {
      return verifyJwt(token, keys, {
        typ,
        issuer: settings.issuer,
        audience: settings.audience,
        requiredClaims: ['sub', 'iat', 'exp', 'jti'],
        now: Math.floor(Date.now() / 1000),
      });
    } catch (error) {
      const expired = error instanceof JwtError && error.failure === 'expired';
      throw invalidToken(expired ? 'The token has expired.' : 'The token is invalid.', error);
    }
  };

  /** The registered claims of both kinds of token (RFC 7519 §4.1), issued at `nowSeconds`. */
  const registered = (subject: string, nowSeconds: number, ttlSeconds: number) => ({
    sub: subject,
    iss: settings.issuer,
    aud: settings.audience,
    iat: nowSeconds,
    exp: nowSeconds + ttlSeconds,
    jti: randomUUID(),
  });

  return {
    async issueAccessToken(principal: UserPrincipal, nowSeconds = Math.floor(Date.now() / 1000)) {
      return signJwt(
        {
          tenant_id: principal.tenantId,
          role: principal.role,
          email: principal.email,
          token_use: 'access',
          ...registered(principal.userId, nowSeconds, ACCESS_TOKEN_TTL_SECONDS),
        },
        await signingKey(),
        ACCESS_TYP,
      );
    },

    async issueRefreshToken(
      principal: Pick<UserPrincipal, 'userId' | 'tenantId'>,
      nowSeconds = Math.floor(Date.now() / 1000),
    ) {
      return signJwt(
        {
          tenant_id: principal.tenantId,
          token_use: 'refresh',
          ...registered(principal.userId, nowSeconds, settings.refreshTtlSeconds),
        },
        await signingKey(),
        REFRESH_TYP,
      );
    },

    async verifyAccessToken(token: string): Promise<UserPrincipal> {
      const principal = accessClaims(await verify(token, ACCESS_TYP));
      if (!principal) throw invalidToken('The token is not an access token.');
      return principal;
    },

    async verifyRefreshToken(token: string): Promise<{ userId: string; tenantId: string }> {
      const subject = refreshClaims(await verify(token, REFRESH_TYP));
      if (!subject) throw invalidToken('The token is not a refresh token.');
      return subject;
    },
  };
};
