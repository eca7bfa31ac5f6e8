import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import * as z from 'zod/mini';
import { AppError } from '../errors';
import { ROLES, type Role } from './roles';

/** Spec 2.1 and 8: access tokens live 24 hours. */
export const ACCESS_TOKEN_TTL_SECONDS = 86_400;

/**
 * RFC 8725 §3.1: the verifier accepts exactly one algorithm, so `none` or an algorithm swap is refused.
 * §3.11/§3.12: the two kinds of token carry different `typ` headers and `token_use` claims, so one can
 * never be replayed as the other.
 */
const ALGORITHM = 'HS256';
const ACCESS_TYP = 'at+jwt'; // RFC 9068 §2.1
const REFRESH_TYP = 'rt+jwt';

export interface UserPrincipal {
  userId: string;
  tenantId: string;
  role: Role;
  email: string;
}

export interface TokenSettings {
  secret: string;
  issuer: string;
  audience: string;
  refreshTtlSeconds: number;
}

const nonEmpty = z.string().check(z.minLength(1));

const accessClaims = z.object({
  sub: nonEmpty,
  tenant_id: nonEmpty,
  role: z.enum(ROLES),
  email: nonEmpty,
  token_use: z.literal('access'),
});

const refreshClaims = z.object({
  sub: nonEmpty,
  tenant_id: nonEmpty,
  token_use: z.literal('refresh'),
});

const invalidToken = (detail: string, cause?: unknown) =>
  new AppError('UNAUTHENTICATED', detail, {
    // RFC 6750 §3: tell the client which scheme to use and why the token failed.
    headers: { 'WWW-Authenticate': `Bearer realm="strategy-service", error="invalid_token"` },
    cause,
  });

export type TokenService = ReturnType<typeof createTokenService>;

export const createTokenService = (settings: TokenSettings) => {
  const key = new TextEncoder().encode(settings.secret);

  const verify = async (token: string, typ: string) => {
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: [ALGORITHM],
        issuer: settings.issuer,
        audience: settings.audience,
        typ,
        requiredClaims: ['sub', 'iat', 'exp', 'jti'],
      });
      return payload;
    } catch (error) {
      const expired = error instanceof joseErrors.JWTExpired;
      throw invalidToken(expired ? 'The token has expired.' : 'The token is invalid.', error);
    }
  };

  return {
    async issueAccessToken(principal: UserPrincipal, nowSeconds = Math.floor(Date.now() / 1000)) {
      return new SignJWT({
        tenant_id: principal.tenantId,
        role: principal.role,
        email: principal.email,
        token_use: 'access',
      })
        .setProtectedHeader({ alg: ALGORITHM, typ: ACCESS_TYP })
        .setSubject(principal.userId)
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setIssuedAt(nowSeconds)
        .setExpirationTime(nowSeconds + ACCESS_TOKEN_TTL_SECONDS)
        .setJti(randomUUID())
        .sign(key);
    },

    async issueRefreshToken(
      principal: Pick<UserPrincipal, 'userId' | 'tenantId'>,
      nowSeconds = Math.floor(Date.now() / 1000),
    ) {
      return new SignJWT({ tenant_id: principal.tenantId, token_use: 'refresh' })
        .setProtectedHeader({ alg: ALGORITHM, typ: REFRESH_TYP })
        .setSubject(principal.userId)
        .setIssuer(settings.issuer)
        .setAudience(settings.audience)
        .setIssuedAt(nowSeconds)
        .setExpirationTime(nowSeconds + settings.refreshTtlSeconds)
        .setJti(randomUUID())
        .sign(key);
    },

    async verifyAccessToken(token: string): Promise<UserPrincipal> {
      const claims = z.safeParse(accessClaims, await verify(token, ACCESS_TYP));
      if (!claims.success) throw invalidToken('The token is not an access token.');
      const { sub, tenant_id, role, email } = claims.data;
      return { userId: sub, tenantId: tenant_id, role, email };
    },

    async verifyRefreshToken(token: string): Promise<{ userId: string; tenantId: string }> {
      const claims = z.safeParse(refreshClaims, await verify(token, REFRESH_TYP));
      if (!claims.success) throw invalidToken('The token is not a refresh token.');
      return { userId: claims.data.sub, tenantId: claims.data.tenant_id };
    },
  };
};
