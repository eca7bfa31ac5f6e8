import { FlattenedSign, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  ACCESS_HEADER,
  accessClaims,
  encode,
  forge,
  forgeText,
  freezeClock,
  NOW,
  principal,
  REFRESH_HEADER,
  refreshClaims,
  refreshSubject,
  refusal,
  SECRET,
  service,
  settings,
  without,
} from './forge';

/**
 * Attacks on the service's JWTs (RFC 8725), each against the token service itself: jose verifies,
 * lib/auth/tokens.ts decides what it is asked to check. Every refusal names what refused it: jose's
 * error code (and the claim), or none when the token's text is refused before jose reads it.
 */
freezeClock();

const invalid = { code: 'UNAUTHENTICATED', message: 'The token is invalid.' };
const expired = { code: 'UNAUTHENTICATED', message: 'The token has expired.', jose: 'ERR_JWT_EXPIRED' };
const access = (token: string | Promise<string>) => Promise.resolve(token).then(service.verifyAccessToken);
const refresh = (token: string | Promise<string>) => Promise.resolve(token).then(service.verifyRefreshToken);
const parts = async (token: string | Promise<string>) => (await token).split('.') as [string, string, string];

describe('the token every attack below departs from', () => {
  it('verifies, as an access token and (with its refresh claims and typ) as a refresh token', async () => {
    expect(await access(forge(accessClaims))).toEqual(principal);
    expect(await refresh(forge(refreshClaims, REFRESH_HEADER))).toEqual(refreshSubject);
  });
});

describe('algorithm: exactly HS256 (RFC 8725 §3.1)', () => {
  it('alg "none": unsigned, or with the signature of a real token', async () => {
    expect(await refusal(access(new UnsecuredJWT(accessClaims).encode()))).toEqual(invalid);
    const [, payload, signature] = await parts(forge(accessClaims));
    for (const alg of ['none', 'None', 'NONE']) {
      const token = `${encode({ alg, typ: 'at+jwt' })}.${payload}.${signature}`;
      expect(await refusal(access(token)), alg).toEqual({ ...invalid, jose: 'ERR_JOSE_ALG_NOT_ALLOWED' });
    }
  });

  it('another algorithm named over an HS256 signature (algorithm confusion)', async () => {
    const [, payload, signature] = await parts(forge(accessClaims));
    for (const alg of ['HS384', 'HS512', 'RS256', 'PS256', 'ES256', 'EdDSA', 'hs256']) {
      const token = `${encode({ alg, typ: 'at+jwt' })}.${payload}.${signature}`;
      expect(await refusal(access(token)), alg).toEqual({ ...invalid, jose: 'ERR_JOSE_ALG_NOT_ALLOWED' });
    }
  });

  it('HS384 and HS512 made with the service key, RS256 and ES256 with their own key pairs', async () => {
    const secret = new TextEncoder().encode(SECRET);
    const tokens = [
      await forge(accessClaims, { alg: 'HS384', typ: 'at+jwt' }, secret),
      await forge(accessClaims, { alg: 'HS512', typ: 'at+jwt' }, secret),
      await forge(accessClaims, { alg: 'RS256', typ: 'at+jwt' }, (await generateKeyPair('RS256')).privateKey),
      await forge(accessClaims, { alg: 'ES256', typ: 'at+jwt' }, (await generateKeyPair('ES256')).privateKey),
    ];
    for (const token of tokens) expect(await refusal(access(token))).toEqual(invalid);
  });
});

describe('header parameters that would choose a key or change the rules', () => {
  it('kid, jwk, jku, x5u: a token signed with another key is refused whatever its header points at', async () => {
    const attackerKey = new TextEncoder().encode('x'.repeat(40));
    for (const extra of [
      { kid: '../../../../dev/null' },
      { kid: "' OR '1'='1" },
      { kid: '' },
      { kid: '1' },
      { jwk: { kty: 'oct', k: Buffer.from('x'.repeat(40)).toString('base64url') } },
      { jku: 'https://attacker.example/jwks.json' },
      { x5u: 'https://attacker.example/cert.pem' },
    ]) {
      const token = await forge(accessClaims, { ...ACCESS_HEADER, ...extra }, attackerKey);
      expect(await refusal(access(token)), JSON.stringify(extra)).toEqual({
        ...invalid,
        jose: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      });
    }
  });

  it('a kid picks nothing: a token of the service key verifies whatever kid it names', async () => {
    expect(await access(forge(accessClaims, { ...ACCESS_HEADER, kid: 'any' }))).toEqual(principal);
  });

  it('a crit header naming an extension the service does not know, or the unencoded payload (RFC 7797)', async () => {
    const unknown = await forgeText(
      JSON.stringify(accessClaims),
      { ...ACCESS_HEADER, crit: ['exp'], exp: NOW + 600 } as typeof ACCESS_HEADER,
      undefined,
      { exp: true },
    );
    expect(await refusal(access(unknown))).toEqual({ ...invalid, jose: 'ERR_JOSE_NOT_SUPPORTED' });
    // A payload of base64url characters sent as it is (jose leaves it out of the JWS: it is detached),
    // so only jose's JWT rule can refuse it.
    const jws = await new FlattenedSign(new TextEncoder().encode('abc'))
      .setProtectedHeader({ ...ACCESS_HEADER, b64: false, crit: ['b64'] })
      .sign(new TextEncoder().encode(SECRET));
    const unencoded = `${jws.protected}.abc.${jws.signature}`;
    expect(await refusal(access(unencoded))).toEqual({ ...invalid, jose: 'ERR_JWT_INVALID' });
  });
});

describe('time (clock tolerance 5 s)', () => {
  it('expired: exp 5 s or more in the past', async () => {
    expect(await refusal(access(forge({ ...accessClaims, exp: NOW - 5 })))).toEqual({
      ...expired,
      claim: 'exp',
    });
    expect(await refusal(access(forge({ ...accessClaims, exp: NOW - 600 })))).toEqual({
      ...expired,
      claim: 'exp',
    });
    expect(await access(forge({ ...accessClaims, exp: NOW - 4 }))).toEqual(principal);
  });

  it('not yet valid: nbf more than 5 s ahead', async () => {
    expect(await refusal(access(forge({ ...accessClaims, nbf: NOW + 6 })))).toEqual({
      ...invalid,
      jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim: 'nbf',
    });
    expect(await access(forge({ ...accessClaims, nbf: NOW + 5 }))).toEqual(principal);
  });

  it('issued more than 5 s in the future', async () => {
    expect(await refusal(access(forge({ ...accessClaims, iat: NOW + 6 })))).toEqual({
      ...invalid,
      jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim: 'iat',
    });
    expect(await access(forge({ ...accessClaims, iat: NOW + 5 }))).toEqual(principal);
  });

  it('issued longer ago than the lifetime of its kind, whatever its exp says', async () => {
    const far = NOW + 10 * 86_400;
    expect(await refusal(access(forge({ ...accessClaims, iat: NOW - 86_400 - 6, exp: far })))).toEqual({
      ...expired,
      claim: 'iat',
    });
    expect(await access(forge({ ...accessClaims, iat: NOW - 86_400 - 5, exp: far }))).toEqual(principal);
    const old = { ...refreshClaims, exp: far };
    expect(
      await refusal(refresh(forge({ ...old, iat: NOW - settings.refreshTtlSeconds - 6 }, REFRESH_HEADER))),
    ).toEqual({ ...expired, claim: 'iat' });
    expect(
      await refresh(forge({ ...old, iat: NOW - settings.refreshTtlSeconds - 5 }, REFRESH_HEADER)),
    ).toEqual(refreshSubject);
  });

  it('an exp of 1e400 (JSON for Infinity) does not make a token live for ever', async () => {
    const text = JSON.stringify({ ...accessClaims, iat: NOW - 86_400 - 6 }).replace(
      /"exp":\d+/,
      '"exp":1e400',
    );
    expect(await refusal(access(forgeText(text)))).toEqual({ ...expired, claim: 'iat' });
  });

  it('a time that is no number', async () => {
    for (const claims of [
      { ...accessClaims, exp: String(NOW + 600) },
      { ...accessClaims, iat: null },
      { ...accessClaims, nbf: 'now' },
    ]) {
      expect(await refusal(access(forge(claims)))).toMatchObject({
        ...invalid,
        jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      });
    }
  });
});

describe('whom and what the token is for', () => {
  it('another typ, or none; typ compared as RFC 7515 §4.1.9 says', async () => {
    for (const header of [REFRESH_HEADER, { alg: 'HS256' }, { alg: 'HS256', typ: 'JWT' }]) {
      expect(await refusal(access(forge(accessClaims, header))), JSON.stringify(header)).toEqual({
        ...invalid,
        jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
        claim: 'typ',
      });
    }
    expect(await refusal(access(forge(accessClaims, { alg: 'HS256', typ: 'at+jwtapplication/' })))).toEqual({
      ...invalid,
      jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim: 'typ',
    });
    for (const typ of ['AT+JWT', 'application/at+jwt', 'Application/AT+JWT']) {
      expect(await access(forge(accessClaims, { alg: 'HS256', typ })), typ).toEqual(principal);
    }
  });

  it('another issuer or audience; an audience list must name this one', async () => {
    for (const [claim, claims] of [
      ['iss', { ...accessClaims, iss: 'someone-else' }],
      ['aud', { ...accessClaims, aud: 'another-api' }],
      ['aud', { ...accessClaims, aud: ['another-api'] }],
    ] as const) {
      expect(await refusal(access(forge(claims)))).toEqual({
        ...invalid,
        jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
        claim,
      });
    }
    expect(await access(forge({ ...accessClaims, aud: ['another-api', settings.audience] }))).toEqual(
      principal,
    );
  });

  it('a refresh token used as an access token, and an access token used as a refresh token', async () => {
    const refreshToken = await service.issueRefreshToken(principal, NOW);
    const accessToken = await service.issueAccessToken(principal, NOW);
    // Thunks: a refusal made before the loop reaches it would reject with no handler attached yet.
    for (const verifying of [() => access(refreshToken), () => refresh(accessToken)]) {
      expect(await refusal(verifying())).toEqual({
        ...invalid,
        jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
        claim: 'typ',
      });
    }
    // The typ of one kind with the token_use of the other is caught by the claims.
    expect(await refusal(access(forge({ ...accessClaims, token_use: 'refresh' })))).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'The token is not an access token.',
    });
    expect(await refusal(refresh(forge({ ...refreshClaims, token_use: 'access' }, REFRESH_HEADER)))).toEqual({
      code: 'UNAUTHENTICATED',
      message: 'The token is not a refresh token.',
    });
  });

  it.each(['sub', 'iat', 'exp', 'jti', 'iss', 'aud'])('a token without %s', async (claim) => {
    expect(await refusal(access(forge(without(accessClaims, claim))))).toEqual({
      ...invalid,
      jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim,
    });
    expect(await refusal(refresh(forge(without(refreshClaims, claim), REFRESH_HEADER)))).toEqual({
      ...invalid,
      jose: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim,
    });
  });
});

describe('tampering', () => {
  it('an edited payload or header under the original signature; an edited signature; another key', async () => {
    const [header, payload, signature] = await parts(forge(accessClaims));
    const other = await forge(accessClaims, ACCESS_HEADER, new TextEncoder().encode('b'.repeat(40)));
    const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    for (const token of [
      `${header}.${encode({ ...accessClaims, role: 'ADMIN' })}.${signature}`,
      `${encode({ ...ACCESS_HEADER, kid: 'x' })}.${payload}.${signature}`,
      `${header}.${payload}.${flipped}`,
      other,
    ]) {
      expect(await refusal(access(token))).toEqual({
        ...invalid,
        jose: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      });
    }
  });

  it('the signature in another spelling of the same bytes (RFC 7515 §2: one token, one form)', async () => {
    const [header, payload, signature] = await parts(forge(accessClaims));
    // 32 bytes take 43 characters; the last one's two low bits are padding, zero in the canonical form.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature.at(-1) as string);
    const alias = `${signature.slice(0, -1)}${alphabet[last + 1]}`;
    expect(Buffer.from(alias, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    const base64 = Buffer.from(signature, 'base64url').toString('base64');
    for (const spelling of [
      alias,
      `${signature}=`,
      base64,
      `${signature.slice(0, 20)} ${signature.slice(20)}`,
      `${signature.slice(0, 20)}\n${signature.slice(20)}`,
    ]) {
      expect(await refusal(access(`${header}.${payload}.${spelling}`)), spelling).toEqual(invalid);
    }
    expect(await refusal(access(`${header}=.${payload}.${signature}`))).toEqual(invalid);
    expect(await refusal(access(`${header}.${payload}=.${signature}`))).toEqual(invalid);
  });

  it('a signature of another length, even in canonical base64url', async () => {
    const [header, payload, signature] = await parts(forge(accessClaims));
    for (const bytes of [16, 31, 33, 64]) {
      const token = `${header}.${payload}.${Buffer.alloc(bytes, 1).toString('base64url')}`;
      expect(await refusal(access(token)), String(bytes)).toEqual(invalid);
    }
    expect(await refusal(access(`${header}.${payload}.${signature.slice(0, -1)}`))).toEqual(invalid);
    expect(await refusal(access(`${header}.${payload}.${signature}A`))).toEqual(invalid);
  });
});

describe('text that is no token of this service', () => {
  it('anything but three base64url parts', async () => {
    const token = await forge(accessClaims);
    const [header, payload, signature] = token.split('.');
    for (const broken of [
      '',
      'a.b',
      `${token}.x`,
      `${header}..${signature}`,
      `.${payload}.${signature}`,
      ` ${token}`,
      `${token} `,
      `${token}\n`,
      `${header}.${payload}.`,
    ]) {
      expect(await refusal(access(broken)), broken).toEqual(invalid);
    }
  });

  it('a header or payload that is no JSON object', async () => {
    const [, payload, signature] = await parts(forge(accessClaims));
    for (const header of [
      encode(null),
      encode([ACCESS_HEADER]),
      Buffer.from('{not json').toString('base64url'),
    ]) {
      expect(await refusal(access(`${header}.${payload}.${signature}`))).toEqual({
        ...invalid,
        jose: 'ERR_JWS_INVALID',
      });
    }
    for (const text of ['null', '[1]', '"x"', '{not json']) {
      expect(await refusal(access(forgeText(text))), text).toEqual({ ...invalid, jose: 'ERR_JWT_INVALID' });
    }
  });

  it('an oversized token is refused before it is decoded; 4096 characters are still read', async () => {
    const padded = (length: number) => forge({ ...accessClaims, pad: 'p'.repeat(length) });
    // Each 3 characters of the claim add 4 to the token: start just below 4096 and step up.
    let length = Math.floor(((4096 - (await padded(0)).length) * 3) / 4) - 3;
    while ((await padded(length)).length < 4096) length += 1;
    const largest = await padded(length);
    expect(largest).toHaveLength(4096);
    expect(await access(largest)).toEqual(principal);
    expect(await refusal(access(padded(length + 3)))).toEqual(invalid);
    expect(await refusal(access(padded(1_000_000)))).toEqual(invalid);
  });

  it('a token a library would issue for this service verifies: nothing here is peculiar to one issuer', async () => {
    const token = await new SignJWT({
      tenant_id: 't1',
      role: 'EDITOR',
      email: 'e@example.test',
      sid: 's1',
      ver: 3,
      token_use: 'access',
    })
      .setProtectedHeader(ACCESS_HEADER)
      .setSubject('u1')
      .setIssuer(settings.issuer)
      .setAudience(settings.audience)
      .setIssuedAt()
      .setExpirationTime('1h')
      .setJti('j')
      .sign(new TextEncoder().encode(SECRET));
    expect(await access(token)).toEqual(principal);
  });
});
