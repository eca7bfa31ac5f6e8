import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handler as acceptHandler } from '../../../functions/accept-invitation';
import { handler as changePasswordHandler } from '../../../functions/change-password';
import { handler as createKey } from '../../../functions/create-api-key';
import { handler as inviteHandler } from '../../../functions/invite-user';
import { handler as listAudit } from '../../../functions/list-audit-events';
import { handler as listUsersHandler } from '../../../functions/list-users';
import { handler as loginHandler } from '../../../functions/login';
import { handler as refreshHandler } from '../../../functions/refresh-token';
import { handler as resetHandler } from '../../../functions/reset-user-password';
import { handler as updateHandler } from '../../../functions/update-user';
import { hashLinkToken, LINK_TOKEN_PATTERN } from '../../../lib/auth/people';
import { keys } from '../../../lib/db/keys';
import { updateTenant } from '../../../lib/db/tenants';
import { getUser } from '../../../lib/db/users';
import { USER_LIMITS } from '../../../lib/domain/plan';
import { config } from '../../../lib/runtime';
import { invoke } from '../../support/events';
import { bearer, createTestTenant, db, type TestUser } from '../../support/fixtures';

/**
 * The people of a tenant (docs/security.md, "People"): invitations with one-time links, roles,
 * deactivation, resets and one's own password, through the handlers against DynamoDB Local.
 */
const as = (user: Pick<TestUser, 'token'>) => bearer(user.token);
const list = (user: Pick<TestUser, 'token'>) =>
  invoke(listUsersHandler, { path: '/api/users', headers: as(user) });
const invite = (user: Pick<TestUser, 'token'>, body: unknown) =>
  invoke(inviteHandler, { method: 'POST', path: '/api/users', headers: as(user), body });
const update = (user: Pick<TestUser, 'token'>, id: string, body: unknown) =>
  invoke(updateHandler, {
    method: 'PATCH',
    path: `/api/users/${id}`,
    pathParameters: { id },
    headers: as(user),
    body,
  });
const reset = (user: Pick<TestUser, 'token'>, id: string) =>
  invoke(resetHandler, {
    method: 'POST',
    path: `/api/users/${id}/password-reset`,
    pathParameters: { id },
    headers: as(user),
  });
const accept = (body: unknown, sourceIp = '198.51.100.7') =>
  invoke(acceptHandler, { method: 'POST', path: '/api/auth/accept-invitation', body, sourceIp });
const login = (email: string, password: string) =>
  invoke(loginHandler, { method: 'POST', path: '/api/auth/login', body: { email, password } });
const refresh = (refreshToken: string) =>
  invoke(refreshHandler, { method: 'POST', path: '/api/auth/refresh-token', body: { refreshToken } });
const createKeyWith = (token: string) =>
  invoke(createKey, { method: 'POST', path: '/api/api-keys', headers: bearer(token), body: { name: 'k' } });
const auditTypes = async (admin: Pick<TestUser, 'token'>) =>
  (
    (await invoke(listAudit, { path: '/api/audit-events', headers: as(admin) })).body.items as {
      type: string;
    }[]
  ).map((item) => item.type);

const PASSWORD = 'a long enough passphrase';
const email = () => `person-${crypto.randomUUID()}@example.test`;

/** Moves `Date` past the session cache's bound. */
const afterTheBound = () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + config.SESSION_CACHE_TTL_SECONDS * 1000 + 1000);
};
afterEach(() => {
  vi.useRealTimers();
});

/** A tenant, and an EDITOR invited into it who accepted and is signed in. */
const withInvitedEditor = async () => {
  const tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
  const admin = tenant.users.ADMIN;
  const address = email();
  const invited = await invite(admin, { email: address, role: 'EDITOR', name: 'Ana' });
  expect(invited.status).toBe(201);
  const session = await accept({ token: invited.body.link.token, password: PASSWORD });
  expect(session.status).toBe(200);
  return {
    tenant,
    admin,
    address,
    id: invited.body.user.id as string,
    session: session.body,
    invited: invited.body,
  };
};

describe('GET /users', () => {
  it('lists the tenant’s users with status, and is for ADMINs only', async () => {
    const { tenant, admin, id } = await withInvitedEditor();
    const pending = await invite(admin, { email: email(), role: 'VIEWER' });
    const answer = await list(admin);
    expect(answer.status).toBe(200);
    const byId = new Map((answer.body.items as { id: string }[]).map((item) => [item.id, item]));
    expect(byId.size).toBe(5);
    expect(byId.get(id)).toMatchObject({
      role: 'EDITOR',
      status: 'active',
      name: 'Ana',
      invitedBy: { userId: admin.id, email: admin.email },
    });
    expect((byId.get(id) as unknown as { lastSignInAt: string | null }).lastSignInAt).not.toBeNull();
    expect(byId.get(pending.body.user.id)).toMatchObject({
      status: 'invited',
      lastSignInAt: null,
      name: null,
    });
    expect(JSON.stringify(answer.body)).not.toMatch(/scrypt|passwordHash|linkHash/);
    expect((await list(tenant.users.EDITOR)).status).toBe(403);
    expect((await list(tenant.users.VIEWER)).status).toBe(403);
  });

  it('pages', async () => {
    const { tenant } = await withInvitedEditor();
    const first = await invoke(listUsersHandler, {
      path: '/api/users',
      query: { limit: '2' },
      headers: as(tenant.users.ADMIN),
    });
    expect(first.body.items).toHaveLength(2);
    const second = await invoke(listUsersHandler, {
      path: '/api/users',
      query: { limit: '2', cursor: first.body.nextCursor },
      headers: as(tenant.users.ADMIN),
    });
    expect(second.body.items).toHaveLength(2);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
  });
});

describe('POST /users', () => {
  it('answers the user and a link shown once; only the SHA-256 of the token is stored', async () => {
    const { admin, invited } = await withInvitedEditor();
    const { token, url, expiresAt, purpose } = invited.link;
    expect(token).toMatch(LINK_TOKEN_PATTERN);
    expect(url).toMatch(/\/platform\/accept#token=sul_/);
    expect(url.endsWith(token)).toBe(true);
    expect(purpose).toBe('invitation');
    const days = (Date.parse(expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
    const { Items = [] } = await db.client.send(new ScanCommand({ TableName: db.tableName }));
    const stored = JSON.stringify(Items);
    expect(stored.includes(token)).toBe(false);
    expect(stored.includes(token.slice(4))).toBe(false);
    expect(stored.includes(PASSWORD)).toBe(false);
    const item = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.userLink(hashLinkToken(token)) }),
    );
    expect(item.Item?.userId).toBe(invited.user.id);
    // Not in any later answer.
    expect(JSON.stringify((await list(admin)).body).includes(token)).toBe(false);
  });

  it('is for ADMINs only', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    expect((await invite(tenant.users.EDITOR, { email: email(), role: 'VIEWER' })).status).toBe(403);
    expect((await invite(tenant.users.VIEWER, { email: email(), role: 'VIEWER' })).status).toBe(403);
  });

  it('refuses an e-mail that is a user of this tenant or of another: 409', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const other = await createTestTenant({ kpiTypes: [] });
    const own = await invite(tenant.users.ADMIN, {
      email: tenant.users.EDITOR.email.toUpperCase(),
      role: 'VIEWER',
    });
    expect(own.status).toBe(409);
    expect(own.body.type).toMatch(/email-taken$/);
    expect(own.body.detail).toMatch(/already a user of this organization/);
    const elsewhere = await invite(tenant.users.ADMIN, { email: other.users.VIEWER.email, role: 'VIEWER' });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.detail).toMatch(/another organization/);
  });

  it('holds the tenant to its plan’s user maximum, also when invitations run at once', async () => {
    const tenant = await createTestTenant({ plan: 'free', kpiTypes: [] });
    // Three users exist; two places are left.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => invite(tenant.users.ADMIN, { email: email(), role: 'VIEWER' })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 409, 409]);
    const refused = answers.find((answer) => answer.status === 409);
    expect(refused?.body.type).toMatch(/user-limit-reached$/);
    expect(refused?.body.limit).toBe(USER_LIMITS.free);
    // A deactivation frees a place; the reactivation then finds none.
    const viewer = tenant.users.VIEWER;
    expect((await update(tenant.users.ADMIN, viewer.id, { active: false })).status).toBe(200);
    expect((await invite(tenant.users.ADMIN, { email: email(), role: 'VIEWER' })).status).toBe(201);
    const back = await update(tenant.users.ADMIN, viewer.id, { active: true });
    expect(back.status).toBe(409);
    expect(back.body.type).toMatch(/user-limit-reached$/);
  });

  it('names what is wrong with the body', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const bad = await invite(tenant.users.ADMIN, { email: 'nope', role: 'OWNER' });
    expect(bad.status).toBe(400);
    expect((bad.body.errors as { path: string }[]).map((error) => error.path).sort()).toEqual([
      'email',
      'role',
    ]);
  });
});

describe('POST /auth/accept-invitation', () => {
  it('signs the invited person in, as a login answers; they can log in with the password', async () => {
    const { address, session } = await withInvitedEditor();
    expect(Object.keys(session).sort()).toEqual(['expiresIn', 'refreshToken', 'token']);
    expect(session.expiresIn).toBe(86400);
    expect((await refresh(session.refreshToken)).status).toBe(200);
    expect((await login(address, PASSWORD)).status).toBe(200);
  });

  it('a used, an expired and an unknown token get one answer; each reason is audited', async () => {
    const tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
    const admin = tenant.users.ADMIN;
    const first = await invite(admin, { email: email(), role: 'VIEWER' });
    expect((await accept({ token: first.body.link.token, password: PASSWORD })).status).toBe(200);
    const used = await accept({ token: first.body.link.token, password: PASSWORD }, '198.51.100.8');

    const second = await invite(admin, { email: email(), role: 'VIEWER' });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 7 * 86_400_000 + 1000);
    const expired = await accept({ token: second.body.link.token, password: PASSWORD }, '198.51.100.9');
    vi.useRealTimers();

    const unknown = await accept({ token: `sul_${'A'.repeat(43)}`, password: PASSWORD }, '198.51.100.10');
    for (const answer of [used, expired, unknown]) {
      expect(answer.status).toBe(400);
      expect(answer.body.type).toMatch(/invalid-link$/);
    }
    expect(used.body.detail).toBe(expired.body.detail);
    expect(used.body.detail).toBe(unknown.body.detail);
    const events = (
      await invoke(listAudit, {
        path: '/api/audit-events',
        query: { type: 'user.link-refused' },
        headers: as(admin),
      })
    ).body.items as {
      details: { reason: string };
    }[];
    expect(events.map((item) => item.details.reason).sort()).toEqual(['expired', 'used']);
  });

  it('two uses of one link at once: one signs in', async () => {
    const tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
    const { body } = await invite(tenant.users.ADMIN, { email: email(), role: 'VIEWER' });
    const answers = await Promise.all([
      accept({ token: body.link.token, password: PASSWORD }, '198.51.100.11'),
      accept({ token: body.link.token, password: `${PASSWORD}!` }, '198.51.100.12'),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
  });

  it('refuses a password against the policy by name, and the link stays usable', async () => {
    const tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
    const address = email();
    const { body } = await invite(tenant.users.ADMIN, { email: address, role: 'VIEWER' });
    for (const password of ['short one', address.toUpperCase(), tenant.tenant.name]) {
      const answer = await accept({ token: body.link.token, password });
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toEqual([{ path: 'password', message: expect.any(String) }]);
    }
    expect((await accept({ token: body.link.token, password: PASSWORD })).status).toBe(200);
  });

  it('is throttled like a login: a source guessing tokens gets 429', async () => {
    const guesses = [];
    for (let i = 0; i < config.LOGIN_MAX_FAILURES_PER_SOURCE + 1; i++) {
      guesses.push(
        await accept({ token: `sul_${String(i).padStart(43, 'B')}`, password: PASSWORD }, '203.0.113.99'),
      );
    }
    expect(guesses.at(-1)?.status).toBe(429);
  }, 60_000);

  it('a replaced link stops working once a new one is given', async () => {
    const tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
    const { body } = await invite(tenant.users.ADMIN, { email: email(), role: 'VIEWER' });
    const again = await reset(tenant.users.ADMIN, body.user.id);
    expect(again.status).toBe(201);
    expect(again.body.link.purpose).toBe('invitation');
    expect((await accept({ token: body.link.token, password: PASSWORD })).status).toBe(400);
    expect((await accept({ token: again.body.link.token, password: PASSWORD })).status).toBe(200);
  });
});

describe('PATCH /users/{id}', () => {
  it('a demotion ends the user’s sessions within the bound', async () => {
    const tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
    const { body } = await invite(tenant.users.ADMIN, { email: email(), role: 'ADMIN' });
    const session = (await accept({ token: body.link.token, password: PASSWORD })).body;
    expect((await createKeyWith(session.token)).status).toBe(201);
    const demoted = await update(tenant.users.ADMIN, body.user.id, { role: 'EDITOR' });
    expect(demoted.status).toBe(200);
    expect(demoted.body.role).toBe('EDITOR');
    afterTheBound();
    expect((await createKeyWith(session.token)).status).toBe(401);
    expect((await refresh(session.refreshToken)).status).toBe(401);
  });

  it('a deactivation ends the sessions and refuses login; a reactivation restores it', async () => {
    const { admin, address, id, session } = await withInvitedEditor();
    const off = await update(admin, id, { active: false });
    expect(off.status).toBe(200);
    expect(off.body.status).toBe('deactivated');
    expect((await refresh(session.refreshToken)).status).toBe(401);
    afterTheBound();
    expect(
      (await invoke(listUsersHandler, { path: '/api/users', headers: bearer(session.token) })).status,
    ).toBe(401);
    vi.useRealTimers();
    const refusedLogin = await login(address, PASSWORD);
    expect(refusedLogin.status).toBe(403);
    expect(refusedLogin.body.type).toMatch(/user-disabled$/);
    const on = await update(admin, id, { active: true });
    expect(on.body.status).toBe('active');
    expect((await login(address, PASSWORD)).status).toBe(200);
    const types = await auditTypes(admin);
    expect(types.filter((type) => type === 'user.updated')).toHaveLength(2);
    expect(types).toContain('sessions.revoked');
    expect(types).toContain('user.invited');
    expect(types).toContain('user.link-used');
  });

  it('keeps the last active ADMIN: neither demoted nor deactivated', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const admin = tenant.users.ADMIN;
    for (const body of [{ role: 'EDITOR' }, { active: false }]) {
      const answer = await update(admin, admin.id, body);
      expect(answer.status).toBe(409);
      expect(answer.body.type).toMatch(/last-admin$/);
    }
    // An invited ADMIN who never set a password is no active ADMIN.
    await invite(admin, { email: email(), role: 'ADMIN' });
    expect((await update(admin, admin.id, { role: 'VIEWER' })).status).toBe(409);
    expect((await getUser(db, admin.tenantId, admin.id))?.role).toBe('ADMIN');
  });

  it('two ADMINs demoting each other at once: one stays ADMIN', async () => {
    const tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
    const { body } = await invite(tenant.users.ADMIN, { email: email(), role: 'ADMIN' });
    const second = (await accept({ token: body.link.token, password: PASSWORD })).body;
    const first = tenant.users.ADMIN;
    const answers = await Promise.all([
      update(first, body.user.id, { active: false }),
      update(second, first.id, { active: false }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const [a, b] = await Promise.all([
      getUser(db, first.tenantId, first.id),
      getUser(db, first.tenantId, body.user.id),
    ]);
    expect([a?.disabled, b?.disabled].filter((disabled) => disabled === false)).toHaveLength(1);
  });

  it('another tenant’s user is 404, and only ADMINs may change users', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const other = await createTestTenant({ kpiTypes: [] });
    expect((await update(tenant.users.ADMIN, other.users.VIEWER.id, { role: 'EDITOR' })).status).toBe(404);
    expect((await reset(tenant.users.ADMIN, other.users.VIEWER.id)).status).toBe(404);
    expect((await update(tenant.users.EDITOR, tenant.users.VIEWER.id, { role: 'EDITOR' })).status).toBe(403);
    expect((await reset(tenant.users.EDITOR, tenant.users.VIEWER.id)).status).toBe(403);
    expect((await getUser(db, other.tenant.id, other.users.VIEWER.id))?.role).toBe('VIEWER');
  });

  it('a body that changes nothing is 400', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    expect((await update(tenant.users.ADMIN, tenant.users.VIEWER.id, {})).status).toBe(400);
  });
});

describe('password reset and change', () => {
  it('a reset ends the user’s sessions and gives a link that sets a new password', async () => {
    const { admin, address, id, session } = await withInvitedEditor();
    const answer = await reset(admin, id);
    expect(answer.status).toBe(201);
    expect(answer.body.link.purpose).toBe('password-reset');
    expect((await refresh(session.refreshToken)).status).toBe(401);
    afterTheBound();
    expect((await createKeyWith(session.token)).status).toBe(401);
    vi.useRealTimers();
    expect((await accept({ token: answer.body.link.token, password: `${PASSWORD} two` })).status).toBe(200);
    expect((await login(address, `${PASSWORD} two`)).status).toBe(200);
    expect((await login(address, PASSWORD)).status).toBe(401);
  });

  it('changing one’s own password ends the other sessions and gives a new one', async () => {
    const { address, session } = await withInvitedEditor();
    const other = (await login(address, PASSWORD)).body;
    const change = (body: unknown) =>
      invoke(changePasswordHandler, {
        method: 'POST',
        path: '/api/auth/change-password',
        headers: bearer(session.token),
        body,
      });
    const wrong = await change({ currentPassword: 'not it at all', newPassword: `${PASSWORD} new` });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([{ path: 'currentPassword', message: 'is wrong' }]);
    const weak = await change({ currentPassword: PASSWORD, newPassword: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.body.errors[0].path).toBe('newPassword');
    const changed = await change({ currentPassword: PASSWORD, newPassword: `${PASSWORD} new` });
    expect(changed.status).toBe(200);
    expect((await refresh(other.refreshToken)).status).toBe(401);
    expect((await refresh(changed.body.refreshToken)).status).toBe(200);
    expect((await login(address, `${PASSWORD} new`)).status).toBe(200);
  });

  it('an inactive tenant’s link does not sign in', async () => {
    const tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
    const { body } = await invite(tenant.users.ADMIN, { email: email(), role: 'VIEWER' });
    await updateTenant(db, tenant.tenant.id, { active: false });
    expect((await accept({ token: body.link.token, password: PASSWORD })).status).toBe(403);
  });
});
