import { randomInt } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as listKeysHandler } from '../../../functions/list-api-keys';
import { handler } from '../../../functions/login';
import { DEVICE_TOKEN_TTL_SECONDS } from '../../../lib/auth/tokens';
import { apiEvent, invoke, lambdaContext } from '../../support/events';
import { bearer, createTestTenant, type TestUser, tokens } from '../../support/fixtures';

/**
 * The device token through the login handler, as the pages and API clients meet it, with the limits
 * lowered through the configuration (read at cold start, so set before the handler is imported): a
 * ceiling of 2 failures per e-mail, and 1 attempt a minute for devices without a device token.
 */
vi.hoisted(() => {
  vi.stubEnv('LOGIN_FAILURE_CEILING_PER_EMAIL', '2');
  vi.stubEnv('LOGIN_NEW_DEVICE_ATTEMPTS_PER_MINUTE', '1');
});
afterAll(() => {
  vi.unstubAllEnvs();
});

const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

const post = (body: unknown, { sourceIp = address(), cookie }: { sourceIp?: string; cookie?: string } = {}) =>
  invoke(handler, {
    method: 'POST',
    path: '/api/auth/login',
    body,
    sourceIp,
    headers: cookie === undefined ? {} : { Cookie: cookie },
  });

/** The attributes of a Set-Cookie value, by lower-case name (a flag's value is true). */
const cookieOf = (setCookie: string) => {
  const [pair = '', ...attributes] = setCookie.split(';').map((part) => part.trim());
  const [name, value] = pair.split(/=(.*)/s);
  return {
    name,
    value,
    attributes: Object.fromEntries(
      attributes.map((attribute) => {
        const [key = '', val] = attribute.split('=');
        return [key.toLowerCase(), val ?? true];
      }),
    ),
  };
};

/** Two failures from two addresses: the e-mail is past its ceiling of 2. */
const attack = async (email: string) => {
  for (let i = 0; i < 2; i++) expect((await post({ email, password: `guess-${i}` })).status).toBe(401);
};

let user: TestUser;
beforeEach(async () => {
  user = (await createTestTenant({ kpiTypes: [] })).users.EDITOR;
});

describe('POST /auth/login: the device token', () => {
  it('a login answers it in the body and as an HttpOnly, Secure, SameSite=Strict cookie for the login path only', async () => {
    const result = await post({ email: user.email, password: user.password });
    expect(result.status).toBe(200);
    const cookie = cookieOf(result.headers['set-cookie'] as string);
    expect(cookie).toEqual({
      name: '__Secure-device-token',
      value: result.body.deviceToken,
      attributes: {
        path: '/api/auth/login',
        'max-age': String(DEVICE_TOKEN_TTL_SECONDS),
        httponly: true,
        secure: true,
        samesite: 'Strict',
      },
    });
    // What it holds: the user and their token version, nothing of the tenant, e-mail or role; 90 days.
    expect(decodeProtectedHeader(result.body.deviceToken)).toEqual({ alg: 'HS256', typ: 'device+jwt' });
    const claims = decodeJwt(result.body.deviceToken);
    expect(Object.keys(claims).sort()).toEqual([
      'aud',
      'exp',
      'iat',
      'iss',
      'jti',
      'sub',
      'token_use',
      'ver',
    ]);
    expect(claims).toMatchObject({ sub: user.id, ver: 0, token_use: 'device' });
    expect((claims.exp as number) - (claims.iat as number)).toBe(90 * 86_400);
  });

  it('behind a stage or base path, the cookie is for the path the client called', async () => {
    const event = apiEvent({
      method: 'POST',
      path: '/api/auth/login',
      body: { email: user.email, password: user.password },
    });
    event.requestContext.path = '/prod/api/auth/login';
    const result = await handler(event, lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(cookieOf(String(result.headers?.['Set-Cookie'])).attributes.path).toBe('/prod/api/auth/login');
  });

  it('past the ceiling, the cookie or the body field lets the user in at once; without one, a device waits its minute', async () => {
    const first = await post({ email: user.email, password: user.password });
    const { deviceToken } = first.body;
    await attack(user.email);
    // The minute's one attempt for devices without a token goes to the attacker.
    expect((await post({ email: user.email, password: 'guess-2' })).status).toBe(401);
    const refused = await post({ email: user.email, password: user.password });
    expect(refused.status).toBe(429);
    expect(refused.body.type).toMatch(/\/too-many-login-attempts$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    // The browser that signed in before: its cookie (among others) is enough.
    const browser = await post(
      { email: user.email, password: user.password },
      { cookie: `theme=dark; __Secure-device-token=${deviceToken}; lang=en` },
    );
    expect(browser.status).toBe(200);
    // An API client sends its token in the body; a cookie it does not have changes nothing.
    const client = await post({ email: user.email, password: user.password, deviceToken });
    expect(client.status).toBe(200);
    // A token that does not count is no error: the attempt is a new device's, refused for the minute.
    for (const stale of ['not-a-token', first.body.refreshToken]) {
      expect((await post({ email: user.email, password: user.password, deviceToken: stale })).status).toBe(
        429,
      );
      expect(
        (
          await post(
            { email: user.email, password: user.password },
            { cookie: `__Secure-device-token=${stale}` },
          )
        ).status,
      ).toBe(429);
    }
  });

  it('is no access token: a JWT route refuses it', async () => {
    const { body } = await post({ email: user.email, password: user.password });
    await expect(tokens.verifyAccessToken(body.deviceToken)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    await expect(tokens.verifyRefreshToken(body.deviceToken)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    const listed = await invoke(listKeysHandler, {
      path: '/api/api-keys',
      headers: bearer(body.deviceToken),
    });
    expect(listed.status).toBe(401);
  });

  it('refuses a device token field that is no string or too long, naming it', async () => {
    for (const deviceToken of [42, 'x'.repeat(4097)]) {
      const result = await post({ email: user.email, password: user.password, deviceToken });
      expect(result.status).toBe(400);
      expect(JSON.stringify(result.body.errors)).toContain('deviceToken');
    }
  });
});
