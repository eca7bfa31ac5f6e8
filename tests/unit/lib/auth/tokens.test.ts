import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TTL_SECONDS, createTokenService } from '../../../../lib/auth/tokens';

const settings = {
  secret: randomBytes(32).toString('base64url'),
  issuer: 'strategy-service',
  audience: 'strategy-service-api',
  refreshTtlSeconds: 3600,
};
const service = createTokenService(settings);
const principal = { userId: 'u1', tenantId: 't1', role: 'EDITOR' as const, email: 'e@example.test' };

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
    await expect(service.verifyAccessToken(await foreign.issueAccessToken(principal))).rejects.toThrow();
    await expect(
      service.verifyAccessToken(await otherAudience.issueAccessToken(principal)),
    ).rejects.toThrow();
  });

  it('refuses an expired token with an "expired" detail', async () => {
    const old = await service.issueAccessToken(principal, Math.floor(Date.now() / 1000) - 2 * 86400);
    await expect(service.verifyAccessToken(old)).rejects.toThrow(/expired/);
  });
});
