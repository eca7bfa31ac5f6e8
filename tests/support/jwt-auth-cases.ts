import { randomUUID } from 'node:crypto';
import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { revokeAllSessions, updateAccount } from '../../lib/auth/accounts';
import { logout, startSession } from '../../lib/auth/sign-in';
import { createUser } from '../../lib/db/users';
import { ROLES, type Role } from '../../lib/domain/user';
import type { InvokeResult } from './events';
import { bearer, createTestTenant, db, type TenantOptions, type TestTenant, tokens } from './fixtures';

type Call = (headers: Record<string, string>, tenant: TestTenant) => Promise<InvokeResult>;

const secret = () => new TextEncoder().encode(process.env.JWT_SECRET);

/** The claims of the tenant admin's own token: a forged token differs from it only where a case says. */
const claimsFor = (tenant: TestTenant) => {
  const user = tenant.users.ADMIN;
  const { sid, ver } = decodeJwt(user.token);
  return { tenant_id: tenant.tenant.id, role: 'ADMIN', email: user.email, token_use: 'access', sid, ver };
};

/** Another admin of the tenant with a session of their own, for the cases that end sessions. */
const anotherAdmin = async (tenant: TestTenant) => {
  const user = await createUser(db, {
    tenantId: tenant.tenant.id,
    email: `admin-${randomUUID()}@example.test`,
    role: 'ADMIN',
    passwordHash: 'not used: this admin never logs in',
  });
  return { user, ...(await startSession({ db, tokens }, user)) };
};

const sign = (
  tenant: TestTenant,
  {
    key = secret(),
    typ = 'at+jwt',
    iss = 'strategy-service',
    aud = 'strategy-service-api',
    exp = '1h',
    iat,
  }: {
    key?: Uint8Array;
    typ?: string;
    iss?: string;
    aud?: string;
    exp?: string | number;
    iat?: number;
  } = {},
) =>
  new SignJWT(claimsFor(tenant))
    .setProtectedHeader({ alg: 'HS256', typ })
    .setSubject(tenant.users.ADMIN.id)
    .setIssuer(iss)
    .setAudience(aud)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(randomUUID())
    .sign(key);

/**
 * RFC 6750 §3: a request without a token gets the bare challenge; a token that fails gets
 * `error="invalid_token"`. Problems are never cached (RFC 9111 §5.2.2.5).
 */
const expectUnauthenticated = (result: InvokeResult) => {
  expect(result.status).toBe(401);
  expect(result.headers['content-type']).toBe('application/problem+json');
  expect(result.headers['cache-control']).toBe('no-store');
  expect(result.headers['www-authenticate']).toMatch(
    /^Bearer realm="strategy-service"(, error="invalid_token")?$/,
  );
  expect(result.body.type).toMatch(/\/unauthenticated$/);
};

/**
 * The authentication and authorization cases every JWT route must pass (spec 5.1, RFC 8725).
 * `call` sends an otherwise valid request for the given tenant with the given auth headers.
 */
export const describeJwtAuth = (
  route: string,
  call: Call,
  { roles = ROLES, tenant: tenantOptions = {} }: { roles?: readonly Role[]; tenant?: TenantOptions } = {},
) =>
  describe(`${route}: JWT authentication (shared cases)`, () => {
    let tenant: TestTenant;
    beforeAll(async () => {
      // Enterprise: no key maximum, so routes that create a key per case never hit it.
      tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI'], ...tenantOptions });
    });

    it('401 without Authorization header, with WWW-Authenticate: Bearer and no error (RFC 6750 §3.1)', async () => {
      const result = await call({}, tenant);
      expectUnauthenticated(result);
      expect(result.headers['www-authenticate']).toBe('Bearer realm="strategy-service"');
      expect(result.body.detail).toBe('Send the access token as "Authorization: Bearer <token>".');
    });

    it('401 for another scheme or a malformed header', async () => {
      expectUnauthenticated(await call({ Authorization: `Basic ${tenant.users.ADMIN.token}` }, tenant));
      expectUnauthenticated(await call({ Authorization: 'Bearer' }, tenant));
      expectUnauthenticated(await call({ Authorization: 'Bearer not a token' }, tenant));
      expectUnauthenticated(await call({ Authorization: `x Bearer ${tenant.users.ADMIN.token}` }, tenant));
    });

    it('accepts the scheme in any case and spaces around the token (RFC 9110 §11.1)', async () => {
      const token = tenant.users.ADMIN.token;
      for (const value of [`bearer ${token}`, `BEARER  ${token}`, `Bearer ${token}  `]) {
        expect((await call({ Authorization: value }, tenant)).status).toBeLessThan(400);
      }
    });

    it('a token that fails verification gets error="invalid_token"', async () => {
      const [header, payload] = tenant.users.ADMIN.token.split('.');
      const result = await call(bearer(`${header}.${payload}.AAAA`), tenant);
      expectUnauthenticated(result);
      expect(result.headers['www-authenticate']).toBe(
        'Bearer realm="strategy-service", error="invalid_token"',
      );
    });

    it('401 for a token whose payload was altered', async () => {
      const [header, payload, signature] = tenant.users.VIEWER.token.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, role: 'ADMIN' })).toString('base64url');
      expectUnauthenticated(await call(bearer(`${header}.${forged}.${signature}`), tenant));
    });

    it('401 for a token signed with another key', async () => {
      const token = await sign(tenant, { key: new TextEncoder().encode('x'.repeat(48)) });
      expectUnauthenticated(await call(bearer(token), tenant));
    });

    it('401 for an unsigned token (alg "none")', async () => {
      const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      const token = `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode({
        ...claimsFor(tenant),
        sub: tenant.users.ADMIN.id,
        iss: 'strategy-service',
        aud: 'strategy-service-api',
        iat: now,
        exp: now + 3600,
        jti: randomUUID(),
      })}.`;
      expectUnauthenticated(await call(bearer(token), tenant));
    });

    it('401 for an expired token, saying so', async () => {
      const now = Math.floor(Date.now() / 1000);
      const token = await sign(tenant, { iat: now - 86_500, exp: now - 100 });
      const result = await call(bearer(token), tenant);
      expectUnauthenticated(result);
      expect(result.body.detail).toMatch(/expired/);
    });

    it('401 for a token with another algorithm: HS512 with the same secret, RS256 with its own key pair', async () => {
      const claims = { ...claimsFor(tenant), sub: tenant.users.ADMIN.id, jti: randomUUID() };
      const hs512 = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS512', typ: 'at+jwt' })
        .setIssuer('strategy-service')
        .setAudience('strategy-service-api')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(secret());
      expectUnauthenticated(await call(bearer(hs512), tenant));
      const { privateKey } = await generateKeyPair('RS256');
      const rs256 = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt' })
        .setIssuer('strategy-service')
        .setAudience('strategy-service-api')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(privateKey);
      expectUnauthenticated(await call(bearer(rs256), tenant));
      // The RS256 header on an HS256 signature made with the service's own secret (algorithm confusion).
      const [, payload, signature] = (await sign(tenant)).split('.') as [string, string, string];
      const confused = `${Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'at+jwt' })).toString('base64url')}.${payload}.${signature}`;
      expectUnauthenticated(await call(bearer(confused), tenant));
    });

    it('401 for a token not valid yet (nbf in the future)', async () => {
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ ...claimsFor(tenant) })
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .setSubject(tenant.users.ADMIN.id)
        .setIssuer('strategy-service')
        .setAudience('strategy-service-api')
        .setIssuedAt(now)
        .setNotBefore(now + 3600)
        .setExpirationTime(now + 7200)
        .setJti(randomUUID())
        .sign(secret());
      expectUnauthenticated(await call(bearer(token), tenant));
    });

    it('401 for a valid token followed by junk, or sent twice', async () => {
      const token = tenant.users.ADMIN.token;
      expectUnauthenticated(await call({ Authorization: `Bearer ${token} junk` }, tenant));
      expectUnauthenticated(await call({ Authorization: `Bearer ${token}.x` }, tenant));
      expectUnauthenticated(await call({ Authorization: `Bearer ${token}${token}` }, tenant));
    });

    it('401 for a wrong issuer, audience or token type', async () => {
      expectUnauthenticated(await call(bearer(await sign(tenant, { iss: 'someone-else' })), tenant));
      expectUnauthenticated(await call(bearer(await sign(tenant, { aud: 'another-api' })), tenant));
      expectUnauthenticated(await call(bearer(await sign(tenant, { typ: 'JWT' })), tenant));
    });

    it('401 for a refresh token used as an access token', async () => {
      expectUnauthenticated(await call(bearer(tenant.users.ADMIN.refreshToken), tenant));
    });

    it('401 once the session of the token has ended (logout), though the token is valid for hours', async () => {
      const { token, refreshToken } = await anotherAdmin(tenant);
      await logout({ db, tokens }, refreshToken);
      const result = await call(bearer(token), tenant);
      expectUnauthenticated(result);
      expect(result.body.detail).toBe('The session has ended. Sign in again.');
    });

    it('401 once every session of the user was revoked, or the user disabled or demoted', async () => {
      const revoked = await anotherAdmin(tenant);
      await revokeAllSessions(db, tenant.tenant.id, revoked.user.id);
      const disabled = await anotherAdmin(tenant);
      await updateAccount(db, tenant.tenant.id, disabled.user.id, { disabled: true });
      const demoted = await anotherAdmin(tenant);
      await updateAccount(db, tenant.tenant.id, demoted.user.id, { role: 'VIEWER' });
      for (const { token } of [revoked, disabled, demoted]) {
        const result = await call(bearer(token), tenant);
        expectUnauthenticated(result);
        expect(result.body.detail).toBe('The token has been revoked. Sign in again.');
      }
    });

    it("403 when X-Tenant-ID names another tenant; accepted when it is the token's tenant", async () => {
      const mismatch = await call(
        { ...bearer(tenant.users.ADMIN.token), 'X-Tenant-ID': randomUUID() },
        tenant,
      );
      expect(mismatch.status).toBe(403);
      expect(mismatch.body.type).toMatch(/\/tenant-mismatch$/);
      expect(mismatch.body.detail).toBe("X-Tenant-ID does not match the token's tenant.");
      const match = await call(
        { ...bearer(tenant.users.ADMIN.token), 'x-tenant-id': tenant.tenant.id },
        tenant,
      );
      expect(match.status).toBeLessThan(400);
    });

    for (const role of ROLES) {
      const allowed = roles.includes(role);
      it(`${role} ${allowed ? 'is allowed' : 'gets 403'}`, async () => {
        const result = await call(bearer(tenant.users[role].token), tenant);
        if (allowed) {
          expect(result.status).toBeLessThan(400);
        } else {
          expect(result.status).toBe(403);
          expect(result.body.type).toMatch(/\/forbidden$/);
          expect(result.headers['cache-control']).toBe('no-store');
          // RFC 6750 §3.1: a valid token without the rights the route needs.
          expect(result.headers['www-authenticate']).toBe(
            'Bearer realm="strategy-service", error="insufficient_scope"',
          );
          expect(result.body.detail).toBe(`This operation requires the role ${roles.join(' or ')}.`);
        }
      });
    }
  });
