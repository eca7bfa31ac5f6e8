import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as createKey } from '../../../functions/create-api-key';
import { handler as listKpis } from '../../../functions/list-kpis';
import { handler as loginHandler } from '../../../functions/login';
import { handler as logoutHandler } from '../../../functions/logout';
import { handler as refreshHandler } from '../../../functions/refresh-token';
import { revokeAllSessions, updateAccount } from '../../../lib/auth/accounts';
import { createSessionGuard } from '../../../lib/auth/session-guard';
import { keys } from '../../../lib/db/keys';
import { getSessionState } from '../../../lib/db/sessions';
import { getUser } from '../../../lib/db/users';
import { config } from '../../../lib/runtime';
import { invoke } from '../../support/events';
import { bearer, createTestTenant, db, type TestTenant, type TestUser, tokens } from '../../support/fixtures';
import { instrument } from '../../support/instrumented-db';
import { captureOutput } from '../../support/output';

/**
 * Sessions that can be ended (docs/security.md, "Sessions"): every login starts a session, the record
 * of its refresh token; logout ends it; disabling or demoting a user, signing out everywhere and the
 * operator's `revoke-sessions` end all of the user's sessions. Refresh tokens stop at once; access
 * tokens (24 hours, spec 2.1) within SESSION_CACHE_TTL_SECONDS, the bound of the session cache.
 */
const loginAs = async (user: TestUser) => {
  const result = await invoke(loginHandler, {
    method: 'POST',
    path: '/api/auth/login',
    body: { email: user.email, password: user.password },
  });
  expect(result.status).toBe(200);
  return result.body as { token: string; refreshToken: string };
};
const refresh = (refreshToken: string) =>
  invoke(refreshHandler, { method: 'POST', path: '/api/auth/refresh-token', body: { refreshToken } });
const logout = (body: unknown) => invoke(logoutHandler, { method: 'POST', path: '/api/auth/logout', body });
const createKeyWith = (token: string) =>
  invoke(createKey, { method: 'POST', path: '/api/api-keys', headers: bearer(token), body: { name: 'k' } });

/** Moves `Date` (what the session cache, jose and the SDK read) past the cache's bound. */
const afterTheBound = () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + config.SESSION_CACHE_TTL_SECONDS * 1000 + 1000);
};
afterEach(() => {
  vi.useRealTimers();
});

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
});

/** An admin of their own: these cases end sessions and change users. */
const freshAdmin = async () => (await createTestTenant({ plan: 'enterprise', kpiTypes: [] })).users.ADMIN;

describe('sessions: revocation of access tokens', () => {
  it('the documented bound is at most 60 s', () => {
    expect(config.SESSION_CACHE_TTL_SECONDS).toBeGreaterThan(0);
    expect(config.SESSION_CACHE_TTL_SECONDS).toBeLessThanOrEqual(60);
  });

  it('a demoted admin cannot create a key with the old token once the documented bound has passed', async () => {
    const admin = await freshAdmin();
    const { token, refreshToken } = await loginAs(admin);
    expect((await createKeyWith(token)).status).toBe(201);
    await updateAccount(db, admin.tenantId, admin.id, { role: 'VIEWER' });
    afterTheBound();
    const attempt = await createKeyWith(token);
    expect(attempt.status).toBe(401);
    expect(attempt.body.detail).toBe('The token has been revoked. Sign in again.');
    // Nor get a token of the old role: the refresh token was revoked with it.
    expect((await refresh(refreshToken)).status).toBe(401);
  });

  it('a disabled admin cannot create a key with the old token once the documented bound has passed', async () => {
    const admin = await freshAdmin();
    const { token } = await loginAs(admin);
    expect((await createKeyWith(token)).status).toBe(201);
    await updateAccount(db, admin.tenantId, admin.id, { disabled: true });
    afterTheBound();
    expect((await createKeyWith(token)).status).toBe(401);
  });

  it('every ending of a user’s sessions is an audit line naming tenant, user and why; a promotion ends none', async () => {
    const audits = async (run: () => Promise<unknown>) =>
      (await captureOutput(run)).lines
        .filter((line) => line.audit)
        .map(({ audit, tenantId, userId, reason }) => ({ audit, tenantId, userId, reason }));
    const admin = await freshAdmin();
    const ended = (reason: string) => [
      { audit: 'sessions.revoked', tenantId: admin.tenantId, userId: admin.id, reason },
    ];
    expect(await audits(() => updateAccount(db, admin.tenantId, admin.id, { role: 'EDITOR' }))).toEqual(
      ended('demoted'),
    );
    expect(await audits(() => updateAccount(db, admin.tenantId, admin.id, { role: 'ADMIN' }))).toEqual([]);
    expect(await audits(() => revokeAllSessions(db, admin.tenantId, admin.id))).toEqual(ended('revoked'));
    expect(await audits(() => updateAccount(db, admin.tenantId, admin.id, { disabled: true }))).toEqual(
      ended('disabled'),
    );
  });

  it('a token never seen by this container is refused at once: the bound applies only to one in the cache', async () => {
    const admin = await freshAdmin();
    const { token } = await loginAs(admin);
    await updateAccount(db, admin.tenantId, admin.id, { role: 'EDITOR' });
    expect((await createKeyWith(token)).status).toBe(401);
  });

  it('a promotion keeps the sessions: the old token answers 401 until refreshed, the refresh gives the new role', async () => {
    const viewer = (await createTestTenant({ kpiTypes: [] })).users.VIEWER;
    const { token, refreshToken } = await loginAs(viewer);
    await updateAccount(db, viewer.tenantId, viewer.id, { role: 'ADMIN' });
    const stale = await invoke(listKpis, { path: '/api/kpis', headers: bearer(token) });
    expect(stale.status).toBe(401);
    expect(stale.body.detail).toBe('The role of this account changed. Refresh the token.');
    const renewed = await refresh(refreshToken);
    expect(renewed.status).toBe(200);
    expect(decodeJwt(renewed.body.token).role).toBe('ADMIN');
    expect((await createKeyWith(renewed.body.token)).status).toBe(201);
  });
});

describe('sessions: logout and revocation of refresh tokens', () => {
  it('after logout the refresh token gives 401, and the access token once the bound has passed', async () => {
    const { token, refreshToken } = await loginAs(tenant.users.EDITOR);
    expect((await invoke(listKpis, { path: '/api/kpis', headers: bearer(token) })).status).toBe(200);
    const out = await logout({ refreshToken });
    expect(out.status).toBe(204);
    const refused = await refresh(refreshToken);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('The session has ended. Sign in again.');
    expect(refused.headers['www-authenticate']).toBe(
      'Bearer realm="strategy-service", error="invalid_token"',
    );
    afterTheBound();
    expect((await invoke(listKpis, { path: '/api/kpis', headers: bearer(token) })).status).toBe(401);
  });

  it('logout ends only its own session: another login of the same user goes on', async () => {
    const [first, second] = [await loginAs(tenant.users.VIEWER), await loginAs(tenant.users.VIEWER)];
    await logout({ refreshToken: first.refreshToken });
    expect((await refresh(first.refreshToken)).status).toBe(401);
    expect((await refresh(second.refreshToken)).status).toBe(200);
  });

  it('after the user is disabled the refresh token gives 401', async () => {
    const admin = await freshAdmin();
    const { refreshToken } = await loginAs(admin);
    await updateAccount(db, admin.tenantId, admin.id, { disabled: true });
    const refused = await refresh(refreshToken);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('The token has been revoked. Sign in again.');
  });

  it('signing out everywhere ends every session of the user, and needs a live session to do so', async () => {
    const user = (await createTestTenant({ kpiTypes: [] })).users.EDITOR;
    const [here, elsewhere] = [await loginAs(user), await loginAs(user)];
    expect((await logout({ refreshToken: here.refreshToken, everywhere: true })).status).toBe(204);
    expect((await refresh(elsewhere.refreshToken)).status).toBe(401);
    expect((await refresh(here.refreshToken)).status).toBe(401);
    expect((await getUser(db, user.tenantId, user.id))?.tokenVersion).toBe(1);
    // A revoked token cannot sign its owner out again: a thief cannot keep ending the new sessions.
    const again = await logout({ refreshToken: elsewhere.refreshToken, everywhere: true });
    expect(again.status).toBe(401);
    expect((await getUser(db, user.tenantId, user.id))?.tokenVersion).toBe(1);
  });

  it('the operator’s revoke-sessions ends every session of the user', async () => {
    const user = (await createTestTenant({ kpiTypes: [] })).users.VIEWER;
    const { refreshToken, token } = await loginAs(user);
    await revokeAllSessions(db, user.tenantId, user.id);
    expect((await refresh(refreshToken)).status).toBe(401);
    expect((await invoke(listKpis, { path: '/api/kpis', headers: bearer(token) })).status).toBe(401);
    // A new login starts a session of the new version.
    const renewed = await loginAs(user);
    expect((await refresh(renewed.refreshToken)).status).toBe(200);
  });

  it('logout of a token that is invalid, expired or already ended is no error (RFC 7009)', async () => {
    const { refreshToken } = await loginAs(tenant.users.ADMIN);
    expect((await logout({ refreshToken })).status).toBe(204);
    expect((await logout({ refreshToken })).status).toBe(204);
    expect((await logout({ refreshToken: 'garbage' })).status).toBe(204);
    expect((await logout({ refreshToken: tenant.users.ADMIN.token })).status).toBe(204);
    // But signing out everywhere with one is refused, and the body is checked like any other.
    expect((await logout({ refreshToken: 'garbage', everywhere: true })).status).toBe(401);
    expect((await logout({ refreshToken, everywhere: 'yes' })).status).toBe(400);
    expect((await logout({})).status).toBe(400);
  });
});

describe('sessions: what a login records', () => {
  it('a session per login, living exactly as long as its refresh token, holding no token', async () => {
    const { refreshToken, token } = await loginAs(tenant.users.EDITOR);
    const claims = decodeJwt(refreshToken);
    expect(decodeJwt(token).sid).toBe(claims.sid);
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.session(claims.sid as string) }),
    );
    expect(Item).toMatchObject({
      type: 'SESSION',
      userId: tenant.users.EDITOR.id,
      tenantId: tenant.tenant.id,
      ttl: claims.exp,
    });
    expect(claims.exp).toBe((claims.iat as number) + tokens.refreshTtlSeconds);
    expect(JSON.stringify(Item)).not.toContain(refreshToken.split('.')[2]);
  });
});

describe('sessions: what the check costs', () => {
  it('one strongly consistent BatchGetItem of session, user and tenant per session and container within the bound', async () => {
    const probe = instrument(db);
    const guard = createSessionGuard({
      load: (principal) => getSessionState(probe.db, principal),
      ttlSeconds: config.SESSION_CACHE_TTL_SECONDS,
    });
    const principal = await tokens.verifyAccessToken(tenant.users.VIEWER.token);
    for (let i = 0; i < 5; i++) await guard.check(principal);
    expect(probe.calls).toHaveLength(1);
    const [call] = probe.calls;
    expect(call?.command).toBe('BatchGetItemCommand');
    const request = call?.input.RequestItems[db.tableName];
    expect(request.ConsistentRead).toBe(true);
    expect(request.Keys.map((key: { pk: string }) => key.pk.split('#')[0]).sort()).toEqual([
      'SESSION',
      'TENANT',
      'TENANT',
    ]);
    // Three items of under 1 KB, strongly consistent: 3 read units.
    expect(probe.capacity().read).toBe(3);
  });
});
