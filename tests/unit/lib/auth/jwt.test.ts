import { createHmac } from 'node:crypto';
import { generateKeyPair, jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { hmacKey, JwtError, type JwtFailure, signJwt, verifyJwt } from '../../../../lib/auth/jwt';

/**
 * lib/auth/jwt.ts replaces jose in the service (issue 11). jose stays here as the oracle: our tokens
 * verify with jose, jose's verify with ours, and every attack jose refuses ours refuses too.
 */
const SECRET = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);
const key = hmacKey(SECRET);
const now = Math.floor(Date.now() / 1000);
const options = {
  typ: 'at+jwt',
  issuer: 'strategy-service',
  audience: 'strategy-service-api',
  requiredClaims: ['sub', 'iat', 'exp', 'jti'],
  now,
};
const claims = {
  sub: 'user-1',
  iss: 'strategy-service',
  aud: 'strategy-service-api',
  iat: now,
  exp: now + 3600,
  jti: 'j-1',
  role: 'ADMIN',
};

const joseToken = (
  payload: Record<string, unknown> = claims,
  header: Record<string, unknown> = { alg: 'HS256', typ: 'at+jwt' },
  secret = SECRET,
) =>
  new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(new TextEncoder().encode(secret));

const failure = (
  token: string,
  keys = [key],
  overrides: Partial<typeof options> = {},
): JwtFailure | 'accepted' => {
  try {
    verifyJwt(token, keys, { ...options, ...overrides });
    return 'accepted';
  } catch (error) {
    return (error as { failure: JwtFailure }).failure;
  }
};

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('lib/auth/jwt: interoperability with jose', () => {
  it('a token it signs verifies with jose, with the same claims and header', async () => {
    const token = signJwt(claims, key, 'at+jwt');
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(SECRET), {
      algorithms: ['HS256'],
      issuer: options.issuer,
      audience: options.audience,
      typ: 'at+jwt',
      requiredClaims: ['sub', 'iat', 'exp', 'jti'],
    });
    expect(payload).toEqual(claims);
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'at+jwt' });
  });

  it('a token jose signs verifies here, also with `application/at+jwt` as typ and an audience list', async () => {
    expect(verifyJwt(await joseToken(), [key], options)).toEqual(claims);
    const typed = await joseToken(claims, { alg: 'HS256', typ: 'application/AT+JWT' });
    expect(failure(typed)).toBe('accepted');
    const listed = await joseToken({ ...claims, aud: ['other', 'strategy-service-api'] });
    expect(failure(listed)).toBe('accepted');
  });

  it('accepts a token of any of the keys (rotation), and no other', async () => {
    const old = await joseToken(claims, undefined, OTHER);
    expect(failure(old, [key, hmacKey(OTHER)])).toBe('accepted');
    expect(failure(old, [key])).toBe('signature');
  });
});

describe('lib/auth/jwt: what it refuses', () => {
  it('another algorithm: none, HS512 with the same secret, RS256, and an RS256 header on an HS256 signature', async () => {
    expect(failure(new UnsecuredJWT(claims).encode())).toBe('malformed');
    expect(failure(await joseToken(claims, { alg: 'HS512', typ: 'at+jwt' }))).toBe('malformed');
    const { privateKey } = await generateKeyPair('RS256');
    const rs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt' })
      .sign(privateKey);
    expect(failure(rs256)).toBe('malformed');
    const [, payload, signature] = (await joseToken()).split('.');
    expect(failure(`${encode({ alg: 'RS256', typ: 'at+jwt' })}.${payload}.${signature}`)).toBe('malformed');
  });

  it('a wrong or missing typ, and any crit header', async () => {
    expect(failure(await joseToken(claims, { alg: 'HS256', typ: 'rt+jwt' }))).toBe('malformed');
    expect(failure(await joseToken(claims, { alg: 'HS256' }))).toBe('malformed');
    const [, payload] = (await joseToken()).split('.');
    const header = encode({ alg: 'HS256', typ: 'at+jwt', crit: ['exp'], exp: 1 });
    const input = `${header}.${payload}`;
    const signature = createHmac('sha256', SECRET).update(input).digest('base64url');
    expect(failure(`${input}.${signature}`)).toBe('malformed');
  });

  it('an edited header, payload or signature, and a signature in another base64 form', async () => {
    const [header, payload, signature] = (await joseToken()).split('.') as [string, string, string];
    const forged = encode({ ...claims, role: 'OWNER' });
    expect(failure(`${header}.${forged}.${signature}`)).toBe('signature');
    expect(failure(`${encode({ alg: 'HS256', typ: 'at+jwt', kid: 'x' })}.${payload}.${signature}`)).toBe(
      'signature',
    );
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect(failure(`${header}.${payload}.${flipped}`)).not.toBe('accepted');
    expect(failure(`${header}.${payload}.${signature}=`)).toBe('malformed');
    expect(
      failure(`${header}.${payload}.${Buffer.from(signature, 'base64url').toString('base64')}`),
    ).not.toBe('accepted');
  });

  it('a signature in a non-canonical base64url form of the same bytes (RFC 7515 §2: one token, one form)', async () => {
    const [header, payload, signature] = (await joseToken()).split('.') as [string, string, string];
    // 32 bytes take 43 characters; the last one's two low bits are padding, zero in the canonical form.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature.at(-1) as string);
    const alias = `${signature.slice(0, -1)}${alphabet[last + 1]}`;
    expect(Buffer.from(alias, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(failure(`${header}.${payload}.${alias}`)).toBe('malformed');
    // A canonical signature of another length is a wrong signature, not an error.
    expect(failure(`${header}.${payload}.${Buffer.alloc(16, 1).toString('base64url')}`)).toBe('signature');
    expect(failure(`${header}.${payload}.${signature}`)).toBe('accepted');
  });

  it('a header or payload of JSON null; typ differing other than by case or a leading application/', async () => {
    const sign = (headerPart: string, payloadPart: string) => {
      const input = `${headerPart}.${payloadPart}`;
      return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
    };
    expect(failure(sign(encode(null), encode(claims)))).toBe('malformed');
    expect(failure(sign(encode({ alg: 'HS256', typ: 'at+jwt' }), encode(null)))).toBe('malformed');
    expect(failure(sign(encode({ alg: 'HS256', typ: 'AT+JWT' }), encode(claims)))).toBe('accepted');
    expect(failure(sign(encode({ alg: 'HS256', typ: 'Application/at+jwt' }), encode(claims)))).toBe(
      'accepted',
    );
    expect(failure(sign(encode({ alg: 'HS256', typ: 'at+jwtapplication/' }), encode(claims)))).toBe(
      'malformed',
    );
    expect(failure(sign(encode({ alg: 'HS256', typ: 7 }), encode(claims)))).toBe('malformed');
  });

  it('says why, as a JwtError', () => {
    const error = new JwtError('expired');
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.message, error.failure]).toEqual([
      'JwtError',
      'JWT rejected: expired',
      'expired',
    ]);
  });

  it('anything but three base64url parts of JSON objects', async () => {
    const token = await joseToken();
    const [header, payload, signature] = token.split('.');
    for (const broken of [
      '',
      'a.b',
      `${token}.x`,
      `${header}..${signature}`,
      ` ${token}`,
      `${token} `,
      `${header}.${payload}.`,
      `${encode([1])}.${payload}.${signature}`,
      `${Buffer.from('{not json').toString('base64url')}.${payload}.${signature}`,
    ]) {
      expect(failure(broken), broken).toBe('malformed');
    }
  });

  it('a payload that is not an object, claims of the wrong type, or a required claim missing', async () => {
    const sign = (payload: unknown) => {
      const input = `${encode({ alg: 'HS256', typ: 'at+jwt' })}.${encode(payload)}`;
      return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
    };
    expect(failure(sign([claims]))).toBe('malformed');
    expect(failure(sign('x'))).toBe('malformed');
    expect(failure(sign({ ...claims, exp: String(claims.exp) }))).toBe('claims');
    expect(failure(sign({ ...claims, iat: null }))).toBe('claims');
    // 1e400 is valid JSON and parses to Infinity: a token that never expires.
    const input = `${encode({ alg: 'HS256', typ: 'at+jwt' })}.${Buffer.from(
      JSON.stringify(claims).replace(/"exp":\d+/, '"exp":1e400'),
    ).toString('base64url')}`;
    expect(failure(`${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`)).toBe(
      'claims',
    );
    for (const claim of ['sub', 'iat', 'exp', 'jti']) {
      const { [claim]: _dropped, ...rest } = claims as Record<string, unknown>;
      expect(failure(sign(rest)), claim).toBe('claims');
    }
  });

  it('another issuer or audience; expired; not valid yet', async () => {
    expect(failure(await joseToken({ ...claims, iss: 'someone' }))).toBe('claims');
    expect(failure(await joseToken({ ...claims, aud: 'other-api' }))).toBe('claims');
    expect(failure(await joseToken({ ...claims, exp: now }))).toBe('expired');
    expect(failure(await joseToken({ ...claims, exp: now - 1 }))).toBe('expired');
    expect(failure(await joseToken({ ...claims, nbf: now + 1 }))).toBe('not-yet-valid');
    expect(failure(await joseToken({ ...claims, nbf: now }))).toBe('accepted');
  });
});
