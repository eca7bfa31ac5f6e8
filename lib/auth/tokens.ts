import { randomUUID } from 'node:crypto';
import { errors, type JWTPayload, type JWTVerifyOptions, jwtVerify, SignJWT } from 'jose';
import * as z from 'zod/mini';
import type { SecretSource } from '../crypto/seal';
import { ROLES, type Role } from '../domain/user';
import { AppError } from '../errors';

/** Spec 2.1 and 8: access tokens live 24 hours. */
export const ACCESS_TOKEN_TTL_SECONDS = 86_400;

/**
 * A device token (./login-throttle.ts) lives 90 days: a browser or client that signed in within a
 * quarter is recognised, and every sign-in gives it a new one.
 */
export const DEVICE_TOKEN_TTL_SECONDS = 90 * 86_400;

/** RFC 8725 §3.1: the verifier accepts exactly one algorithm, so `none` or an algorithm swap is refused. */
const ALGORITHM = 'HS256';

/**
 * RFC 8725 §3.11/§3.12: the two kinds of token carry different `typ` headers and `token_use` claims, so
 * one can never be replayed as the other.
 */
const ACCESS_TYP = 'at+jwt'; // RFC 9068 §2.1
const REFRESH_TYP = 'rt+jwt';
const DEVICE_TYP = 'device+jwt';

/**
 * A token is issued by one container and verified by another: their clocks agree within milliseconds
 * (Amazon Time Sync), but `iat` is whole seconds, so the verifier may see a token issued up to a second
 * "in the future". 5 s absorbs that with margin, and keeps an expired token usable for at most 5 s.
 */
const CLOCK_TOLERANCE_SECONDS = 5;

/**
 * Far above the largest token the service issues (under 1 KB, with a 254-character e-mail) and below
 * API Gateway's 10 KB of headers: a longer text is refused before anything in it is decoded.
 */
const MAX_TOKEN_LENGTH = 4096;

/**
 * RFC 7515 §2/§7.1: three base64url parts without padding; the signature is HMAC-SHA-256's 32 bytes,
 * 43 characters whose last one carries two zero padding bits. jose decodes with `atob` on Node 20 and
 * 22, which also takes `=` padding, whitespace and non-zero padding bits: this check gives a token one
 * spelling.
 */
const COMPACT_HS256 = /^[\w-]+\.[\w-]+\.[\w-]{42}[AEIMQUYcgkosw048]$/;

/** RFC 7518 §3.2: an HS256 key has at least 256 bits. */
const MIN_KEY_LENGTH = 32;

/** Who an access token speaks for, and the session it belongs to. */
export interface UserPrincipal {
  userId: string;
  tenantId: string;
  role: Role;
  email: string;
  /** The session (`sid` claim): the refresh token's record, which logout deletes. */
  sessionId: string;
  /** The user's token version when the token was issued (`ver` claim); raising it revokes the token. */
  tokenVersion: number;
}

/** Who a refresh token speaks for: the user, their tenant, the session and the token version. */
export type RefreshSubject = Pick<UserPrincipal, 'userId' | 'tenantId' | 'sessionId' | 'tokenVersion'>;

/**
 * What a device token says: a browser or client signed in as this user, while the user's token
 * version was this one (a new password, disabling, a demotion or "sign out everywhere" raises it and
 * so ends every device token too), and its own id (`jti`), by which its failures are counted.
 */
export interface DeviceSubject {
  userId: string;
  tokenVersion: number;
  deviceId: string;
}

export interface TokenSettings {
  /**
   * The HS256 key text, or a function that reads it (SSM on AWS). One key per line, for a rotation
   * without logging everyone out: the first line signs, every line verifies (docs/operations.md, "Secrets").
   */
  secret: SecretSource;
  issuer: string;
  audience: string;
  refreshTtlSeconds: number;
}

export const invalidToken = (detail: string, cause?: unknown) =>
  new AppError('UNAUTHENTICATED', detail, {
    // RFC 6750 §3: tell the client which scheme to use and why the token failed.
    headers: { 'WWW-Authenticate': `Bearer realm="strategy-service", error="invalid_token"` },
    cause,
  });

/**
 * The keys of one key text, imported once as WebCrypto keys: jose imports a Uint8Array or a secret
 * KeyObject anew for every token, a CryptoKey never. The text is never part of an error.
 */
const importKeys = async (text: string): Promise<CryptoKey[]> => {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  if (lines.length === 0 || lines.some((line) => line.length < MIN_KEY_LENGTH)) {
    // A deployment error, not the caller's: it becomes a 500 and the log names it (never the key).
    throw new Error(`Every JWT key must be at least ${MIN_KEY_LENGTH} characters (RFC 7518 §3.2).`);
  }
  return Promise.all(
    lines.map((line) =>
      crypto.subtle.importKey(
        'raw',
        new TextEncoder().encode(line),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign', 'verify'],
      ),
    ),
  );
};

/** Rotation: each key in turn while the signature is what fails; any other refusal is final. */
const verifyWithAny = async (token: string, [key, ...others]: CryptoKey[], options: JWTVerifyOptions) => {
  try {
    return (await jwtVerify(token, key as CryptoKey, options)).payload;
  } catch (error) {
    if (others.length > 0 && error instanceof errors.JWSSignatureVerificationFailed) {
      return verifyWithAny(token, others, options);
    }
    throw error;
  }
};

export type TokenService = ReturnType<typeof createTokenService>;

/**
 * The claims this service reads, checked after jose verified the signature and the registered claims.
 * Built by a function rather than at module scope: every function imports this module through
 * lib/runtime.ts, and a module-level zod schema would stay in the bundles that never verify a token.
 */
const claimSchemas = () => {
  const nonEmpty = z.string().check(z.minLength(1));
  const version = z.int().check(z.gte(0));
  return {
    access: z.object({
      token_use: z.literal('access'),
      sub: nonEmpty,
      tenant_id: nonEmpty,
      email: nonEmpty,
      role: z.enum(ROLES),
      sid: nonEmpty,
      ver: version,
    }),
    refresh: z.object({
      token_use: z.literal('refresh'),
      sub: nonEmpty,
      tenant_id: nonEmpty,
      sid: nonEmpty,
      ver: version,
    }),
    device: z.object({ token_use: z.literal('device'), sub: nonEmpty, ver: version, jti: nonEmpty }),
  };
};

/** An access token's own claims (spec 2.1), as the pages also read them. */
export type AccessClaims = z.output<ReturnType<typeof claimSchemas>['access']>;

export const createTokenService = (settings: TokenSettings) => {
  const { secret, issuer, audience, refreshTtlSeconds } = settings;
  const { access: accessClaims, refresh: refreshClaims, device: deviceClaims } = claimSchemas();

  let imported: { text: string; keys: Promise<CryptoKey[]> } | undefined;
  const keys = async () => {
    const text = typeof secret === 'string' ? secret : await secret();
    if (imported?.text !== text) imported = { text, keys: importKeys(text) };
    return imported.keys;
  };

  const verify = async (token: string, typ: string, lifetimeSeconds: number) => {
    if (token.length > MAX_TOKEN_LENGTH || !COMPACT_HS256.test(token)) {
      throw invalidToken('The token is invalid.');
    }
    // Outside the try: a key that cannot be read or imported is the service's fault (5xx), not the token's.
    const verificationKeys = await keys();
    try {
      return await verifyWithAny(token, verificationKeys, {
        algorithms: [ALGORITHM],
        typ,
        issuer,
        audience,
        requiredClaims: ['sub', 'iat', 'exp', 'jti'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        // Bounds a token's life by its `iat` too, and refuses an `iat` in the future.
        maxTokenAge: lifetimeSeconds,
      });
    } catch (error) {
      throw invalidToken(
        error instanceof errors.JWTExpired ? 'The token has expired.' : 'The token is invalid.',
        error,
      );
    }
  };

  /** The registered claims of both kinds of token (RFC 7519 §4.1), issued at `nowSeconds`. */
  const sign = async (claims: JWTPayload, typ: string, subject: string, nowSeconds: number, ttl: number) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM, typ })
      .setSubject(subject)
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + ttl)
      .setJti(randomUUID())
      .sign(((await keys()) as [CryptoKey])[0]);

  return {
    /** How long a refresh token lives, and so its session record (lib/auth/sessions.ts). */
    refreshTtlSeconds,

    issueAccessToken: (principal: UserPrincipal, nowSeconds = Math.floor(Date.now() / 1000)) =>
      sign(
        {
          tenant_id: principal.tenantId,
          role: principal.role,
          email: principal.email,
          sid: principal.sessionId,
          ver: principal.tokenVersion,
          token_use: 'access',
        },
        ACCESS_TYP,
        principal.userId,
        nowSeconds,
        ACCESS_TOKEN_TTL_SECONDS,
      ),

    issueRefreshToken: (subject: RefreshSubject, nowSeconds = Math.floor(Date.now() / 1000)) =>
      sign(
        {
          tenant_id: subject.tenantId,
          sid: subject.sessionId,
          ver: subject.tokenVersion,
          token_use: 'refresh',
        },
        REFRESH_TYP,
        subject.userId,
        nowSeconds,
        refreshTtlSeconds,
      ),

    async verifyAccessToken(token: string): Promise<UserPrincipal> {
      const claims = accessClaims.safeParse(await verify(token, ACCESS_TYP, ACCESS_TOKEN_TTL_SECONDS));
      if (!claims.success) throw invalidToken('The token is not an access token.', claims.error);
      const { sub, tenant_id, role, email, sid, ver } = claims.data;
      return { userId: sub, tenantId: tenant_id, role, email, sessionId: sid, tokenVersion: ver };
    },

    async verifyRefreshToken(token: string): Promise<RefreshSubject> {
      const claims = refreshClaims.safeParse(await verify(token, REFRESH_TYP, refreshTtlSeconds));
      if (!claims.success) throw invalidToken('The token is not a refresh token.', claims.error);
      const { sub, tenant_id, sid, ver } = claims.data;
      return { userId: sub, tenantId: tenant_id, sessionId: sid, tokenVersion: ver };
    },

    /** A device token: no tenant, e-mail or role in it, only the user, their token version and its id. */
    issueDeviceToken: (
      subject: Pick<DeviceSubject, 'userId' | 'tokenVersion'>,
      nowSeconds = Math.floor(Date.now() / 1000),
    ) =>
      sign(
        { ver: subject.tokenVersion, token_use: 'device' },
        DEVICE_TYP,
        subject.userId,
        nowSeconds,
        DEVICE_TOKEN_TTL_SECONDS,
      ),

    async verifyDeviceToken(token: string): Promise<DeviceSubject> {
      const claims = deviceClaims.safeParse(await verify(token, DEVICE_TYP, DEVICE_TOKEN_TTL_SECONDS));
      if (!claims.success) throw invalidToken('The token is not a device token.', claims.error);
      const { sub, ver, jti } = claims.data;
      return { userId: sub, tokenVersion: ver, deviceId: jti };
    },
  };
};
