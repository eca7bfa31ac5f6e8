import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  createTokenService,
  DEVICE_TOKEN_TTL_SECONDS,
} from '../../../../lib/auth/tokens';
import {
  accessClaims,
  DEVICE_HEADER,
  deviceClaims,
  forge,
  freezeClock,
  NOW,
  principal,
  REFRESH_HEADER,
  refreshClaims,
  refreshSubject,
  refusal,
  service,
  settings,
  without,
} from './forge';

describe('token service', () => {
  it('access tokens expire 86400 s after issue (spec 2.1, 8)', async () => {
    const token = await service.issueAccessToken(principal, 1_800_000_000);
    const claims = decodeJwt(token);
    expect(claims.iat).toBe(1_800_000_000);
    expect(claims.exp).toBe(1_800_000_000 + ACCESS_TOKEN_TTL_SECONDS);
    expect(ACCESS_TOKEN_TTL_SECONDS).toBe(86400);
  });

  it('issues exactly the claims of spec 2.1 and RFC 9068, under an HS256 header of its kind', async () => {
    const access = await service.issueAccessToken(principal, NOW);
    expect(decodeProtectedHeader(access)).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    expect(decodeJwt(access)).toEqual({
      ...accessClaims,
      exp: NOW + ACCESS_TOKEN_TTL_SECONDS,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const refresh = await service.issueRefreshToken(principal, NOW);
    expect(decodeProtectedHeader(refresh)).toEqual({ alg: 'HS256', typ: 'rt+jwt' });
    expect(decodeJwt(refresh)).toEqual({
      ...refreshClaims,
      exp: NOW + settings.refreshTtlSeconds,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
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
    expect(await service.verifyRefreshToken(refresh)).toEqual(refreshSubject);
  });

  // Each device case makes its own service: the shared one is made at import, which the mutation
  // run does not count as any test's coverage.
  it('issues a device token naming only the user and their token version, and reads it back with its id', async () => {
    const service = createTokenService(settings);
    const device = await service.issueDeviceToken({ userId: 'u1', tokenVersion: 3 }, NOW);
    expect(decodeProtectedHeader(device)).toEqual({ alg: 'HS256', typ: 'device+jwt' });
    const claims = decodeJwt(device);
    expect(claims).toEqual({
      ...deviceClaims,
      exp: NOW + DEVICE_TOKEN_TTL_SECONDS,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const fresh = await service.issueDeviceToken({ userId: 'u1', tokenVersion: 3 });
    expect(await service.verifyDeviceToken(fresh)).toEqual({
      userId: 'u1',
      tokenVersion: 3,
      deviceId: decodeJwt(fresh).jti,
    });
  });

  it('refuses an access or refresh token as a device token, and a device token as either', async () => {
    const service = createTokenService(settings);
    const device = await service.issueDeviceToken({ userId: 'u1', tokenVersion: 3 });
    for (const token of [
      await service.issueAccessToken(principal),
      await service.issueRefreshToken(principal),
    ]) {
      await expect(service.verifyDeviceToken(token)).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
        message: 'The token is invalid.',
      });
    }
    await expect(service.verifyAccessToken(device)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(service.verifyRefreshToken(device)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('refuses tokens of another issuer or audience', async () => {
    const foreign = createTokenService({ ...settings, issuer: 'other' });
    const otherAudience = createTokenService({ ...settings, audience: 'other' });
    for (const [claim, token] of [
      ['iss', await foreign.issueAccessToken(principal)],
      ['aud', await otherAudience.issueAccessToken(principal)],
    ] as const) {
      expect(await refusal(service.verifyAccessToken(token))).toEqual({
        code: 'UNAUTHENTICATED',
        message: 'The token is invalid.',
        jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
        claim,
      });
    }
  });

  it('refuses an expired token with an "expired" detail', async () => {
    const old = await service.issueAccessToken(principal, Math.floor(Date.now() / 1000) - 2 * 86400);
    const refreshed = await service.issueRefreshToken(principal, Math.floor(Date.now() / 1000) - 7200);
    await expect(service.verifyAccessToken(old)).rejects.toThrow('The token has expired.');
    await expect(service.verifyRefreshToken(refreshed)).rejects.toThrow('The token has expired.');
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
    freezeClock();

    it('a token made by hand the way the service makes them verifies (the cases below differ only in their claim)', async () => {
      expect(await service.verifyAccessToken(await forge(accessClaims))).toEqual(principal);
      expect(await service.verifyRefreshToken(await forge(refreshClaims, REFRESH_HEADER))).toEqual(
        refreshSubject,
      );
    });

    it('returns only the principal, whatever else the token carries', async () => {
      const extra = { ...accessClaims, role: 'ADMIN', admin: true, tenant: 'other' };
      expect(await service.verifyAccessToken(await forge(extra))).toEqual({ ...principal, role: 'ADMIN' });
    });

    it.each(['sub', 'iat', 'exp', 'jti'])(
      'an access or refresh token without %s is refused',
      async (claim) => {
        await expect(
          service.verifyAccessToken(await forge(without(accessClaims, claim))),
        ).rejects.toMatchObject({
          code: 'UNAUTHENTICATED',
          message: 'The token is invalid.',
          cause: { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim },
        });
        await expect(
          service.verifyRefreshToken(await forge(without(refreshClaims, claim), REFRESH_HEADER)),
        ).rejects.toMatchObject({
          code: 'UNAUTHENTICATED',
          message: 'The token is invalid.',
          cause: { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim },
        });
      },
    );

    it.each([
      ['token_use', 'refresh'],
      ['token_use', undefined],
      ['role', 'OWNER'],
      ['role', 'admin'],
      ['role', undefined],
      ['sub', ''],
      ['sub', 7],
      ['tenant_id', ''],
      ['tenant_id', undefined],
      ['tenant_id', 7],
      ['email', ''],
      ['email', undefined],
      ['sid', ''],
      ['sid', undefined],
      ['sid', 7],
      ['ver', undefined],
      ['ver', -1],
      ['ver', 1.5],
      ['ver', '3'],
    ])('an access token whose %s is %j is not an access token', async (claim, value) => {
      const claims = value === undefined ? without(accessClaims, claim) : { ...accessClaims, [claim]: value };
      await expect(service.verifyAccessToken(await forge(claims))).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
        message: 'The token is not an access token.',
        headers: { 'WWW-Authenticate': 'Bearer realm="strategy-service", error="invalid_token"' },
      });
    });

    it.each([
      ['token_use', 'access'],
      ['token_use', undefined],
      ['sub', ''],
      ['tenant_id', ''],
      ['tenant_id', undefined],
      ['tenant_id', 7],
      ['sid', ''],
      ['sid', undefined],
      ['ver', undefined],
      ['ver', -1],
      ['ver', '3'],
    ])('a refresh token whose %s is %j is not a refresh token', async (claim, value) => {
      const claims =
        value === undefined ? without(refreshClaims, claim) : { ...refreshClaims, [claim]: value };
      await expect(service.verifyRefreshToken(await forge(claims, REFRESH_HEADER))).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
        message: 'The token is not a refresh token.',
        headers: { 'WWW-Authenticate': 'Bearer realm="strategy-service", error="invalid_token"' },
      });
    });
    it.each([
      ['token_use', 'access'],
      ['token_use', undefined],
      ['sub', ''],
      ['jti', ''],
      ['ver', undefined],
      ['ver', -1],
      ['ver', '3'],
    ])('a device token whose %s is %j is not a device token', async (claim, value) => {
      const service = createTokenService(settings);
      const claims = value === undefined ? without(deviceClaims, claim) : { ...deviceClaims, [claim]: value };
      await expect(service.verifyDeviceToken(await forge(claims, DEVICE_HEADER))).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
        message: 'The token is not a device token.',
      });
    });
  });

  describe('keys', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('refuses to sign with a key shorter than 32 characters (RFC 7518 §3.2) or with none, never naming it', async () => {
      for (const secret of ['x'.repeat(31), '', '\n  \n', `${'k'.repeat(32)}\nshort`]) {
        const signing = createTokenService({ ...settings, secret }).issueAccessToken(principal);
        await expect(signing).rejects.toThrow(
          new Error('Every JWT key must be at least 32 characters (RFC 7518 §3.2).'),
        );
      }
      await expect(
        createTokenService({ ...settings, secret: 'k'.repeat(32) }).issueAccessToken(principal),
      ).resolves.toBeTypeOf('string');
    });

    it('a key that cannot be read fails the request as the service’s fault, not as a bad token (no 401)', async () => {
      const failure = new Error('SSM is unreachable');
      const unreadable = createTokenService({
        ...settings,
        secret: () => Promise.reject(failure),
      });
      await expect(unreadable.verifyAccessToken(await service.issueAccessToken(principal))).rejects.toBe(
        failure,
      );
      const short = createTokenService({ ...settings, secret: 'short' });
      await expect(short.verifyRefreshToken(await service.issueRefreshToken(principal))).rejects.toThrow(
        /at least 32 characters/,
      );
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
      expect(await rotating.verifyRefreshToken(await onlySecond.issueRefreshToken(principal))).toEqual(
        refreshSubject,
      );

      // Expired under either key is "expired": only a failed signature makes the next key try.
      const twoDaysAgo = Math.floor(Date.now() / 1000) - 2 * 86400;
      for (const issuer of [onlyFirst, onlySecond]) {
        const expired = await issuer.issueAccessToken(principal, twoDaysAgo);
        expect(await refusal(rotating.verifyAccessToken(expired))).toMatchObject({
          message: 'The token has expired.',
          jose: 'ERR_JWT_EXPIRED',
        });
      }

      text = first;
      expect(await refusal(rotating.verifyAccessToken(signedBySecond))).toEqual({
        code: 'UNAUTHENTICATED',
        message: 'The token is invalid.',
        jose: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      });
    });

    it('imports each key once per key text, not per token', async () => {
      const importKey = vi.spyOn(crypto.subtle, 'importKey');
      let text = `${'a'.repeat(32)}\n${'b'.repeat(32)}`;
      const rotating = createTokenService({ ...settings, secret: async () => text });
      for (let i = 0; i < 3; i++) {
        await rotating.verifyAccessToken(await rotating.issueAccessToken(principal));
      }
      expect(importKey).toHaveBeenCalledTimes(2);
      text = 'c'.repeat(32);
      await rotating.verifyAccessToken(await rotating.issueAccessToken(principal));
      await rotating.verifyAccessToken(await rotating.issueAccessToken(principal));
      expect(importKey).toHaveBeenCalledTimes(3);
    });

    it('imports a key as HMAC-SHA-256 of the line’s UTF-8 bytes, for signing and verifying only', async () => {
      const importKey = vi.spyOn(crypto.subtle, 'importKey');
      const secret = `é${'k'.repeat(31)}`;
      await createTokenService({ ...settings, secret }).issueAccessToken(principal);
      expect(importKey).toHaveBeenCalledWith(
        'raw',
        new TextEncoder().encode(secret),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign', 'verify'],
      );
    });
  });
});
