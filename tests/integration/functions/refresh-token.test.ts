import { randomUUID } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as loginHandler } from '../../../functions/login';
import { handler } from '../../../functions/refresh-token';
import { updateAccount } from '../../../lib/auth/accounts';
import { createSession } from '../../../lib/db/sessions';
import { updateTenant } from '../../../lib/db/tenants';
import { updateUser } from '../../../lib/db/users';
import { invoke } from '../../support/events';
import { createTestTenant, db, type TestTenant, type TestUser, tokens } from '../../support/fixtures';

const refresh = (body: unknown) => invoke(handler, { method: 'POST', path: '/api/auth/refresh-token', body });

const loginAs = async (user: TestUser) => {
  const result = await invoke(loginHandler, {
    method: 'POST',
    path: '/api/auth/login',
    body: { email: user.email, password: user.password },
  });
  return result.body as { token: string; refreshToken: string };
};

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ kpiTypes: [] });
});

describe('POST /auth/refresh-token: happy path', () => {
  it('answers { token, expiresIn: 86400 } and no new refresh token (spec 2.4)', async () => {
    const { refreshToken } = await loginAs(tenant.users.VIEWER);
    const result = await refresh({ refreshToken });
    expect(result.status).toBe(200);
    expect(Object.keys(result.body).sort()).toEqual(['expiresIn', 'token']);
    expect(result.body.expiresIn).toBe(86400);
    expect(decodeJwt(result.body.token)).toMatchObject({ sub: tenant.users.VIEWER.id, token_use: 'access' });
  });

  it('re-reads the user: a promotion (which keeps the sessions) shows in the new token', async () => {
    const other = await createTestTenant({ kpiTypes: [] });
    const { refreshToken } = await loginAs(other.users.EDITOR);
    await updateAccount(db, other.tenant.id, other.users.EDITOR.id, { role: 'ADMIN' });
    const result = await refresh({ refreshToken });
    expect(decodeJwt(result.body.token).role).toBe('ADMIN');
  });
});

describe('POST /auth/refresh-token: errors', () => {
  it('401 once the user is disabled: disabling revokes every session', async () => {
    const other = await createTestTenant({ kpiTypes: [] });
    const { refreshToken } = await loginAs(other.users.VIEWER);
    await updateAccount(db, other.tenant.id, other.users.VIEWER.id, { disabled: true });
    const result = await refresh({ refreshToken });
    expect(result.status).toBe(401);
    expect(result.body.detail).toBe('The token has been revoked. Sign in again.');
  });

  it('403 for a user disabled by a change of the data that left the sessions alone', async () => {
    const other = await createTestTenant({ kpiTypes: [] });
    const { refreshToken } = await loginAs(other.users.VIEWER);
    await updateUser(db, other.tenant.id, other.users.VIEWER.id, { disabled: true });
    const result = await refresh({ refreshToken });
    expect(result.status).toBe(403);
    expect(result.body.type).toMatch(/\/user-disabled$/);
  });

  it('403 once the tenant is inactive', async () => {
    const other = await createTestTenant({ kpiTypes: [] });
    const { refreshToken } = await loginAs(other.users.ADMIN);
    await updateTenant(db, other.tenant.id, { active: false });
    const result = await refresh({ refreshToken });
    expect(result.status).toBe(403);
    expect(result.body.type).toMatch(/\/tenant-inactive$/);
  });

  it('401 for an access token used as a refresh token', async () => {
    const { token } = await loginAs(tenant.users.ADMIN);
    const result = await refresh({ refreshToken: token });
    expect(result.status).toBe(401);
    expect(result.headers['www-authenticate']).toContain('invalid_token');
  });

  it('401 for a garbage or tampered refresh token', async () => {
    const { refreshToken } = await loginAs(tenant.users.ADMIN);
    const [header, payload] = refreshToken.split('.');
    expect((await refresh({ refreshToken: 'garbage' })).status).toBe(401);
    expect((await refresh({ refreshToken: `${header}.${payload}.AAAA` })).status).toBe(401);
  });

  it('401 for an expired refresh token, one of an unknown user, and one with another algorithm', async () => {
    const expired = await tokens.issueRefreshToken(
      {
        userId: tenant.users.VIEWER.id,
        tenantId: tenant.tenant.id,
        sessionId: randomUUID(),
        tokenVersion: 0,
      },
      Math.floor(Date.now() / 1000) - 40 * 24 * 3600,
    );
    const expiredAnswer = await refresh({ refreshToken: expired });
    expect(expiredAnswer.status).toBe(401);
    expect(expiredAnswer.body.detail).toMatch(/expired/);
    // A live session whose user is gone.
    const gone = {
      userId: randomUUID(),
      tenantId: tenant.tenant.id,
      sessionId: randomUUID(),
      tokenVersion: 0,
    };
    await createSession(db, {
      id: gone.sessionId,
      userId: gone.userId,
      tenantId: gone.tenantId,
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    });
    const orphan = await tokens.issueRefreshToken(gone);
    const orphanAnswer = await refresh({ refreshToken: orphan });
    expect(orphanAnswer.status).toBe(401);
    expect(orphanAnswer.body.detail).toMatch(/no longer exists/);
    expect(orphanAnswer.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    const hs512 = await new SignJWT({ tenant_id: tenant.tenant.id, token_use: 'refresh' })
      .setProtectedHeader({ alg: 'HS512', typ: 'rt+jwt' })
      .setSubject(tenant.users.VIEWER.id)
      .setIssuer('strategy-service')
      .setAudience('strategy-service-api')
      .setIssuedAt()
      .setExpirationTime('1h')
      .setJti(randomUUID())
      .sign(new TextEncoder().encode(process.env.JWT_SECRET));
    expect((await refresh({ refreshToken: hs512 })).status).toBe(401);
  });

  it('400 without refreshToken or with unknown fields', async () => {
    const result = await refresh({ token: 'x' });
    expect(result.status).toBe(400);
    expect(result.body.errors.map((error: { path: string }) => error.path).sort()).toEqual([
      'refreshToken',
      'token',
    ]);
  });
});
