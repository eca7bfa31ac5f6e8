import { type CompactJWSHeaderParameters, CompactSign, type KeyInput } from 'jose';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { createTokenService } from '../../../../lib/auth/tokens';

/**
 * Tokens made by hand, the way an attacker or a buggy issuer would make them, for the token service's
 * tests: jose signs whatever header and payload text it is given, so every case differs from a valid
 * token in exactly what it names.
 */
export const SECRET = 'a'.repeat(40);
export const settings = {
  secret: SECRET,
  issuer: 'strategy-service',
  audience: 'strategy-service-api',
  refreshTtlSeconds: 3600,
};
export const service = createTokenService(settings);
export const principal = {
  userId: 'u1',
  tenantId: 't1',
  role: 'EDITOR' as const,
  email: 'e@example.test',
  sessionId: 's1',
  tokenVersion: 3,
};

/** What a refresh token of `principal` names. */
export const refreshSubject = { userId: 'u1', tenantId: 't1', sessionId: 's1', tokenVersion: 3 };

/** The frozen clock of these tests, in epoch seconds. */
export const NOW = 1_800_000_000;

/** Freezes `Date` (what jose reads) at NOW for each test; timers stay real. */
export const freezeClock = () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW * 1000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
};

export const accessClaims = {
  sub: 'u1',
  iss: settings.issuer,
  aud: settings.audience,
  iat: NOW,
  exp: NOW + 600,
  jti: 'j1',
  tenant_id: 't1',
  role: 'EDITOR',
  email: 'e@example.test',
  sid: 's1',
  ver: 3,
  token_use: 'access',
};

export const refreshClaims = {
  sub: 'u1',
  iss: settings.issuer,
  aud: settings.audience,
  iat: NOW,
  exp: NOW + 600,
  jti: 'j2',
  tenant_id: 't1',
  sid: 's1',
  ver: 3,
  token_use: 'refresh',
};

export const deviceClaims = {
  sub: 'u1',
  iss: settings.issuer,
  aud: settings.audience,
  iat: NOW,
  exp: NOW + 600,
  jti: 'j3',
  ver: 3,
  token_use: 'device',
};

export const ACCESS_HEADER = { alg: 'HS256', typ: 'at+jwt' };
export const REFRESH_HEADER = { alg: 'HS256', typ: 'rt+jwt' };
export const DEVICE_HEADER = { alg: 'HS256', typ: 'device+jwt' };

export const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs the payload text as it is (so it may be no JSON object at all) under the given header. */
export const forgeText = (
  payload: string,
  header: CompactJWSHeaderParameters = ACCESS_HEADER,
  key: KeyInput = new TextEncoder().encode(SECRET),
  recognizedCrit?: Record<string, boolean>,
) =>
  new CompactSign(new TextEncoder().encode(payload))
    .setProtectedHeader(header)
    .sign(key, { crit: recognizedCrit });

export const forge = (claims: unknown, header?: CompactJWSHeaderParameters, key?: KeyInput) =>
  forgeText(JSON.stringify(claims), header, key);

export const without = (claims: Record<string, unknown>, name: string) => {
  const { [name]: _dropped, ...rest } = claims;
  return rest;
};

/** How a verification was refused: the answer, and what jose said (its error code and claim), if asked. */
export const refusal = async (verifying: Promise<unknown>) => {
  const error = (await verifying.then(
    () => expect.fail('verified'),
    (e: unknown) => e,
  )) as { code: string; message: string; headers: unknown; cause?: { code?: string; claim?: string } };
  expect(error.headers).toEqual({
    'WWW-Authenticate': 'Bearer realm="strategy-service", error="invalid_token"',
  });
  return {
    code: error.code,
    message: error.message,
    jose: error.cause?.code,
    ...(error.cause?.claim ? { claim: error.cause.claim } : {}),
  };
};
