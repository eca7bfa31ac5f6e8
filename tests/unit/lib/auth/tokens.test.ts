import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { hmacKey, type JwtPayload, signJwt } from '../../../../lib/auth/jwt';
import { ACCESS_TOKEN_TTL_SECONDS, createTokenService } from '../../../../lib/auth/tokens';

const settings = {
  secret: randomBytes(32).toString('base64url'),
  issuer: 'strategy-service',
  audience: 'strategy-service-api',
  refreshTtlSeconds: 3600,
};
const service = createTokenService(settings);
const principal = { userId: 'u1', tenantId: 't1', role: 'EDITOR' as const, email: 'e@example.test' };

/** The refusal of a verification, and why lib/auth/jwt.ts refused (the error's cause). */
const refusal = async (verifying: Promise<unknown>) => {
  const error = (await verifying.then(
    () => expect.fail('verified'),
    (e: unknown) => e,
  )) as { code: string; message: string; cause?: { failure?: string } };
  return { code: error.code, message: error.message, failure: error.cause?.failure };
};

describe('token service', () => {
  it('access tokens expire 86400 s after issue (spec 2.1, 8)', async () => {
    const token = await service.issueAccessToken(principal, 1_800_000_000);
    const claims = decodeJwt(token);
    expect(claims.iat).toBe(1_800_000_000);
    expect(claims.exp).toBe(1_800_000_000 + ACCESS_TOKEN_TTL_SECONDS);
    expect(ACCESS_TOKEN_TTL_SECONDS).toBe(86400);
  });

  it('round-trips an access token to the principal', async () => {
    expect(await service.verifyAccessToken(await service.issueAccessToken(principal))).toEqual(principal);
  });

  it('gives every token its own jti', async () => {
    const [a, b] = await Promise.all([
      service.issueAccessToken(principal),
      service.issueAccessToken(principal),
    ]);
    expect(decodeJwt(a).jti).not.toBe(decodeJwt(b).jti);
  });

  it('refuses a refresh token as an access token and an access token as a refresh token', async () => {
    const access = await service.issueAccessToken(principal);
    const refresh = await service.issueRefreshToken(principal);
    await expect(service.verifyAccessToken(refresh)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(service.verifyRefreshToken(access)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await service.verifyRefreshToken(refresh)).toEqual({ userId: 'u1', tenantId: 't1' });
  });

  it('refuses tokens of another issuer or audience', async () => {
    const foreign = createTokenService({ ...settings, issuer: 'other' });
    const otherAudience = createTokenService({ ...settings, audience: 'other' });
    for (const token of [
      await foreign.issueAccessToken(principal),
      await otherAudience.issueAccessToken(principal),
    ]) {
      expect(await refusal(service.verifyAccessToken(token))).toEqual({
        code: 'UNAUTHENTICATED',
        message: 'The token is invalid.',
        failure: 'claims',
      });
    }
  });

  it('refuses an expired token with an "expired" detail', async () => {
    const old = await service.issueAccessToken(principal, Math.floor(Date.now() / 1000) - 2 * 86400);
    await expect(service.verifyAccessToken(old)).rejects.toThrow(/expired/);
  });

  it('issues at the current time in seconds by default, so tokens do expire (RFC 7519 §2 NumericDate)', async () => {
    const before = Math.floor(Date.now() / 1000);
    const access = decodeJwt(await service.issueAccessToken(principal));
    const refresh = decodeJwt(await service.issueRefreshToken(principal));
    const after = Math.floor(Date.now() / 1000);
    for (const [claims, ttl] of [
      [access, ACCESS_TOKEN_TTL_SECONDS],
      [refresh, settings.refreshTtlSeconds],
    ] as const) {
      expect(claims.iat).toBeGreaterThanOrEqual(before);
      expect(claims.iat).toBeLessThanOrEqual(after);
      expect(claims.exp).toBe((claims.iat as number) + ttl);
    }
  });

  it('answers 401 with WWW-Authenticate: Bearer error="invalid_token" (RFC 6750 §3)', async () => {
    await expect(service.verifyAccessToken('a.b.c')).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      headers: { 'WWW-Authenticate': 'Bearer realm="strategy-service", error="invalid_token"' },
    });
  });

  describe('claims, checked after a valid signature', () => {
    const key = hmacKey(settings.secret);
    const now = Math.floor(Date.now() / 1000);
    const accessClaims = {
      sub: 'u1',
      iss: settings.issuer,
      aud: settings.audience,
      iat: now,
      exp: now + 600,
      jti: 'j1',
      tenant_id: 't1',
      role: 'EDITOR',
      email: 'e@example.test',
      token_use: 'access',
    };
    const refreshClaims = {
      sub: 'u1',
      iss: settings.issuer,
      aud: settings.audience,
      iat: now,
      exp: now + 600,
      jti: 'j2',
      tenant_id: 't1',
      token_use: 'refresh',
    };
    const without = (claims: JwtPayload, name: string) => {
      const copy = { ...claims };
      delete copy[name];
      return copy;
    };

    it('a token made by hand the way the service makes them verifies (the cases below differ only in their claim)', async () => {
      expect(await service.verifyAccessToken(signJwt(accessClaims, key, 'at+jwt'))).toEqual(principal);
      expect(await service.verifyRefreshToken(signJwt(refreshClaims, key, 'rt+jwt'))).toEqual({
        userId: 'u1',
        tenantId: 't1',
      });
    });

    it.each(['sub', 'iat', 'exp', 'jti'])(
      'an access or refresh token without %s is refused',
      async (claim) => {
        await expect(
          service.verifyAccessToken(signJwt(without(accessClaims, claim), key, 'at+jwt')),
        ).rejects.toMatchObject({ code: 'UNAUTHENTICATED', cause: { failure: 'claims' } });
        await expect(
          service.verifyRefreshToken(signJwt(without(refreshClaims, claim), key, 'rt+jwt')),
        ).rejects.toMatchObject({ code: 'UNAUTHENTICATED', cause: { failure: 'claims' } });
      },
    );

    it.each([
      ['token_use', 'refresh'],
      ['token_use', undefined],
      ['role', 'OWNER'],
      ['role', undefined],
      ['sub', ''],
      ['tenant_id', ''],
      ['tenant_id', undefined],
      ['tenant_id', 7],
      ['email', ''],
      ['email', undefined],
    ])('an access token whose %s is %j is not an access token', async (claim, value) => {
      const claims = value === undefined ? without(accessClaims, claim) : { ...accessClaims, [claim]: value };
      await expect(service.verifyAccessToken(signJwt(claims, key, 'at+jwt'))).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
        message: 'The token is not an access token.',
      });
    });

    it.each([
      ['token_use', 'access'],
      ['token_use', undefined],
      ['sub', ''],
      ['tenant_id', ''],
      ['tenant_id', undefined],
    ])('a refresh token whose %s is %j is not a refresh token', async (claim, value) => {
      const claims =
        value === undefined ? without(refreshClaims, claim) : { ...refreshClaims, [claim]: value };
      await expect(service.verifyRefreshToken(signJwt(claims, key, 'rt+jwt'))).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
        message: 'The token is not a refresh token.',
      });
    });
  });

  describe('keys', () => {
    it('refuses to sign with a key shorter than 32 characters (RFC 7518 §3.2) or with none', async () => {
      for (const secret of ['x'.repeat(31), '', '\n  \n', `${'k'.repeat(32)}\nshort`]) {
        await expect(createTokenService({ ...settings, secret }).issueAccessToken(principal)).rejects.toThrow(
          /at least 32 characters/,
        );
      }
      await expect(
        createTokenService({ ...settings, secret: 'k'.repeat(32) }).issueAccessToken(principal),
      ).resolves.toBeTypeOf('string');
    });

    it('signs with the first line of the key text and verifies with every line; re-reads a key source', async () => {
      const [first, second] = ['a'.repeat(32), 'b'.repeat(32)];
      let text = `  ${first}  \n\n${second}\n`;
      const rotating = createTokenService({ ...settings, secret: async () => text });
      const signedByFirst = await rotating.issueAccessToken(principal);
      const onlyFirst = createTokenService({ ...settings, secret: first });
      expect(await onlyFirst.verifyAccessToken(signedByFirst)).toEqual(principal);

      const onlySecond = createTokenService({ ...settings, secret: second });
      const signedBySecond = await onlySecond.issueAccessToken(principal);
      expect(await rotating.verifyAccessToken(signedBySecond)).toEqual(principal);

      text = first;
      expect(await refusal(rotating.verifyAccessToken(signedBySecond))).toMatchObject({
        code: 'UNAUTHENTICATED',
        failure: 'signature',
      });
    });
  });
});
