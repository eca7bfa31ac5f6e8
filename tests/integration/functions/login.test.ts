import { decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../../functions/login';
import { verifyPassword } from '../../../lib/auth/passwords';
import { login } from '../../../lib/auth/sign-in';
import { updateTenant } from '../../../lib/db/tenants';
import { updateUser } from '../../../lib/db/users';
import { invoke } from '../../support/events';
import { createTestTenant, db, type TestTenant, tokens } from '../../support/fixtures';
import { instrument } from '../../support/instrumented-db';

const LOCKOUT = {
  windowSeconds: 900,
  maxFailures: 10,
  maxFailuresPerSource: 100,
  emailCeiling: 1000,
  newDeviceAttemptsPerMinute: 10,
  freeFailures: 3,
};

const post = (body: unknown, headers: Record<string, string> = {}) =>
  invoke(handler, { method: 'POST', path: '/api/auth/login', body, headers });

let acme: TestTenant;
beforeAll(async () => {
  acme = await createTestTenant({ kpiTypes: [] });
});

describe('POST /auth/login: happy path', () => {
  it('answers 200 with token, refreshToken and expiresIn 86400 (spec 2.3)', async () => {
    const { email, password } = acme.users.EDITOR;
    const result = await post({ email, password });
    expect(result.status).toBe(200);
    expect(Object.keys(result.body).sort()).toEqual(['deviceToken', 'expiresIn', 'refreshToken', 'token']);
    expect(result.body.expiresIn).toBe(86400);
    expect(result.headers['cache-control']).toBe('no-store');
  });

  it('issues an access token with exactly the spec 2.1 claims plus iss, aud, jti, token_use, sid and ver', async () => {
    const user = acme.users.EDITOR;
    const { body } = await post({ email: user.email, password: user.password });
    const claims = decodeJwt(body.token);
    expect(Object.keys(claims).sort()).toEqual(
      [
        'aud',
        'email',
        'exp',
        'iat',
        'iss',
        'jti',
        'role',
        'sid',
        'sub',
        'tenant_id',
        'token_use',
        'ver',
      ].sort(),
    );
    expect(claims).toMatchObject({
      sub: user.id,
      tenant_id: acme.tenant.id,
      role: 'EDITOR',
      email: user.email,
      iss: 'strategy-service',
      aud: 'strategy-service-api',
      token_use: 'access',
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(86400);
    expect(decodeProtectedHeader(body.token)).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    expect(decodeProtectedHeader(body.refreshToken)).toEqual({ alg: 'HS256', typ: 'rt+jwt' });
    expect(decodeJwt(body.refreshToken).token_use).toBe('refresh');
  });

  it('matches the e-mail case-insensitively', async () => {
    const { email, password } = acme.users.VIEWER;
    expect((await post({ email: email.toUpperCase(), password })).status).toBe(200);
  });
});

describe('POST /auth/login: errors', () => {
  it('401 for a wrong password and for an unknown e-mail, with the same answer', async () => {
    const wrongPassword = await post({ email: acme.users.ADMIN.email, password: 'wrong' });
    const unknownEmail = await post({ email: 'nobody@example.test', password: 'wrong' });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    const { requestId: _a, ...first } = wrongPassword.body;
    const { requestId: _b, ...second } = unknownEmail.body;
    expect(first).toEqual(second);
    expect(first.type).toMatch(/\/invalid-credentials$/);
  });

  it('verifies a password hash for an unknown e-mail too, so both cases cost the same work', async () => {
    const verified: string[] = [];
    const counting: typeof verifyPassword = (password, hash) => {
      verified.push(hash);
      return verifyPassword(password, hash);
    };
    await expect(
      login(
        { db, tokens, verifyPassword: counting, lockout: LOCKOUT },
        { email: 'ghost@example.test', password: 'x' },
      ),
    ).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(verified).toHaveLength(1);
    expect(verified[0]).toMatch(/^scrypt\$N=32768,r=8,p=3\$/);
  });

  it('an unknown e-mail issues the same reads as a known one before its verification, so timing reveals nothing', async () => {
    const readsBeforeVerification = async (email: string) => {
      const probe = instrument(db);
      let seen: string[] = [];
      const snapshot: typeof verifyPassword = (password, hash) => {
        // What was read (and reserved) before the password was verified: command and number of keys.
        seen = probe.calls
          .map(({ command, input }) => {
            const keys = input.RequestItems
              ? Object.values<{ Keys: unknown[] }>(input.RequestItems)[0]!.Keys
              : [input.Key];
            return `${command} × ${keys.length}`;
          })
          .sort();
        return verifyPassword(password, hash);
      };
      await login(
        { db: probe.db, tokens, verifyPassword: snapshot, lockout: LOCKOUT },
        { email, password: 'wrong', sourceIp: '192.0.2.9' },
      ).catch(() => undefined);
      return seen;
    };
    const known = await readsBeforeVerification(acme.users.VIEWER.email);
    const unknown = await readsBeforeVerification(`ghost-${Date.now()}@example.test`);
    expect(known).toContain('BatchGetItemCommand × 2');
    expect(unknown).toEqual(known);
  });

  it('403 for a user of an inactive tenant (after the password matched)', async () => {
    const other = await createTestTenant({ kpiTypes: [] });
    await updateTenant(db, other.tenant.id, { active: false });
    const result = await post({ email: other.users.ADMIN.email, password: other.users.ADMIN.password });
    expect(result.status).toBe(403);
    expect(result.body.type).toMatch(/\/tenant-inactive$/);
    const wrong = await post({ email: other.users.ADMIN.email, password: 'wrong' });
    expect(wrong.status).toBe(401);
  });

  it('403 for a disabled user', async () => {
    const other = await createTestTenant({ kpiTypes: [] });
    await updateUser(db, other.tenant.id, other.users.VIEWER.id, { disabled: true });
    const result = await post({ email: other.users.VIEWER.email, password: other.users.VIEWER.password });
    expect(result.status).toBe(403);
    expect(result.body.type).toMatch(/\/user-disabled$/);
  });

  it('400 naming every invalid and unknown field', async () => {
    const result = await post({ email: 'not-an-email', remember: true });
    expect(result.status).toBe(400);
    expect(result.body.type).toMatch(/\/validation-failed$/);
    const paths = result.body.errors.map((error: { path: string }) => error.path).sort();
    expect(paths).toEqual(['email', 'password', 'remember']);
  });

  it('400 for malformed JSON, an empty body and a non-object body', async () => {
    for (const body of ['{"email":', '', '   ', '[1,2]', '"text"', 'null']) {
      const result = await post(body, { 'Content-Type': 'application/json' });
      expect(result.status, `body ${JSON.stringify(body)}`).toBe(400);
      expect(result.headers['content-type']).toBe('application/problem+json');
    }
  });

  it('415 for a missing or wrong Content-Type', async () => {
    const body = JSON.stringify({ email: acme.users.ADMIN.email, password: 'x' });
    expect((await post(body)).status).toBe(415);
    expect((await post(body, { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await post(body, { 'content-type': 'application/json; charset=utf-8' })).status).toBe(401);
  });

  it('413 for a body over 64 KiB', async () => {
    const result = await post({ email: 'a@example.test', password: 'x'.repeat(70_000) });
    expect(result.status).toBe(413);
  });
});

describe('POST /auth/login: security', () => {
  it('never returns the password or its hash', async () => {
    const { email, password } = acme.users.ADMIN;
    const result = await post({ email, password });
    const text =
      JSON.stringify(result.body) + Buffer.from(result.body.token.split('.')[1], 'base64url').toString();
    expect(text).not.toContain(password);
    expect(text).not.toContain('scrypt');
  });
});
