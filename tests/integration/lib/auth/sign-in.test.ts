import { randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { login, logout, refresh, type SessionDeps, startSession } from '../../../../lib/auth/sign-in';
import { createTokenService } from '../../../../lib/auth/tokens';
import { keys } from '../../../../lib/db/keys';
import { updateTenant } from '../../../../lib/db/tenants';
import { updateUser } from '../../../../lib/db/users';
import { AppError } from '../../../../lib/errors';
import { logger } from '../../../../lib/logger';
import { throttling } from '../../../support/faults';
import { createTestTenant, db, tokens } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';
import { captureOutput, metricsOf } from '../../../support/output';

/** lib/auth/sign-in.ts: what login writes, logs and answers besides the tokens. */
const lockout = {
  windowSeconds: 900,
  maxFailures: 3,
  maxFailuresPerSource: 100,
  emailCeiling: 1000,
  newDeviceAttemptsPerMinute: 10,
  freeFailures: 3,
};

const attempt = async (deps: SessionDeps & { lockout: typeof lockout }, email: string, password: string) => {
  const { result, lines } = await captureOutput(() =>
    login(deps, { email, password, sourceIp: '192.0.2.1' }).then(
      () => 'ok',
      (error: AppError) => error,
    ),
  );
  logger.resetKeys();
  return { result, lines, audits: lines.filter((line) => line.audit) };
};

describe('login: round trips of the attempt counters', () => {
  const writes = (probe: ReturnType<typeof instrument>) =>
    probe.calls.filter((call) => call.command !== 'GetItemCommand' && call.command !== 'BatchGetItemCommand');
  const counterOf = (call: { input: Record<string, any> }) =>
    `${call.input.Key.pk.split('#')[0]} ${call.input.Key.sk.split('#')[0]}`;

  it('each attempt reserves on its three counters, a first one opening their windows: one write each', async () => {
    const probe = instrument(db);
    const deps = { db: probe.db, tokens, lockout };
    const email = `nobody-${randomUUID()}@example.test`;
    for (let i = 0; i < 2; i++) {
      probe.reset();
      await attempt(deps, email, 'wrong');
      const updates = writes(probe);
      expect(updates.map(counterOf).sort()).toEqual([
        'LOGIN FAILURES',
        'LOGIN SOURCE',
        'LOGINSOURCE FAILURES',
      ]);
      for (const update of updates) {
        expect(update.input.UpdateExpression).toMatch(i === 0 ? /^SET #count = :one/ : /^ADD #count :one$/);
      }
    }
  });

  it('a success forgets its source’s failures and gives back what it counted elsewhere, in one round trip', async () => {
    const { users } = await createTestTenant({ kpiTypes: [] });
    const probe = instrument(db);
    const deps = { db: probe.db, tokens, lockout };
    expect((await attempt(deps, users.ADMIN.email, users.ADMIN.password)).result).toBe('ok');
    const released = writes(probe).filter(
      (call) => call.command === 'DeleteItemCommand' || /:minusOne/.test(call.input.UpdateExpression ?? ''),
    );
    expect(released.map((call) => `${call.command} ${counterOf(call)}`).sort()).toEqual([
      'DeleteItemCommand LOGIN SOURCE',
      'UpdateItemCommand LOGIN FAILURES',
      'UpdateItemCommand LOGINSOURCE FAILURES',
    ]);
  });

  it('a refused attempt writes nothing', async () => {
    const probe = instrument(db);
    const deps = { db: probe.db, tokens, lockout };
    const email = `nobody-${randomUUID()}@example.test`;
    for (let i = 0; i < 3; i++) await attempt(deps, email, 'wrong');
    probe.reset();
    expect((await attempt(deps, email, 'wrong')).result).toMatchObject({ code: 'TOO_MANY_LOGIN_ATTEMPTS' });
    expect(writes(probe)).toEqual([]);
  });
});

describe('login: answers and audit lines', () => {
  it('401 for a wrong password or an unknown e-mail, with one detail for both', async () => {
    const deps = { db, tokens, lockout };
    const { users } = await createTestTenant({ kpiTypes: [] });
    for (const email of [users.ADMIN.email, `nobody-${randomUUID()}@example.test`]) {
      expect((await attempt(deps, email, 'wrong')).result).toMatchObject({
        code: 'INVALID_CREDENTIALS',
        message: 'The e-mail or password is wrong.',
      });
    }
  });

  it('403 details for an inactive organization and a disabled account', async () => {
    const deps = { db, tokens, lockout };
    const inactive = await createTestTenant({ kpiTypes: [] });
    await updateTenant(db, inactive.tenant.id, { active: false });
    expect(
      (await attempt(deps, inactive.users.ADMIN.email, inactive.users.ADMIN.password)).result,
    ).toMatchObject({ code: 'TENANT_INACTIVE', message: 'The organization of this account is inactive.' });
    const other = await createTestTenant({ kpiTypes: [] });
    await updateUser(db, other.tenant.id, other.users.VIEWER.id, { disabled: true });
    expect((await attempt(deps, other.users.VIEWER.email, other.users.VIEWER.password)).result).toMatchObject(
      {
        code: 'USER_DISABLED',
        message: 'This account is disabled.',
      },
    );
  });

  it('the lines of a login name its tenant and user once the e-mail is known', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    const deps = { db, tokens, lockout };
    for (const password of [users.EDITOR.password, 'wrong']) {
      const { audits } = await attempt(deps, users.EDITOR.email, password);
      expect(audits).toEqual([expect.objectContaining({ tenantId: tenant.id, userId: users.EDITOR.id })]);
    }
  });

  it('every later line of the request names the tenant and user, once the e-mail is known', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    for (const password of [users.EDITOR.password, 'wrong']) {
      const { lines } = await captureOutput(async () => {
        await login(
          { db, tokens, lockout },
          { email: users.EDITOR.email, password, sourceIp: '192.0.2.2' },
        ).catch(() => undefined);
        logger.info('the request ends');
      });
      logger.resetKeys();
      expect(lines.find((line) => line.message === 'the request ends')).toMatchObject({
        tenantId: tenant.id,
        userId: users.EDITOR.id,
      });
    }
  });

  it('a device token whose key cannot be read fails the login as the service’s fault, not as no token', async () => {
    const { users } = await createTestTenant({ kpiTypes: [] });
    const deviceToken = await tokens.issueDeviceToken({ userId: users.EDITOR.id, tokenVersion: 0 });
    const failure = new Error('The key store is down.');
    const unreadable = createTokenService({
      secret: async () => {
        throw failure;
      },
      issuer: 'strategy-service',
      audience: 'strategy-service-api',
      refreshTtlSeconds: 3600,
    });
    await expect(
      login(
        { db, tokens: unreadable, lockout },
        { email: users.EDITOR.email, password: 'wrong', sourceIp: '192.0.2.3', deviceToken },
      ),
    ).rejects.toBe(failure);
    logger.resetKeys();
  });

  it('the failure that locks an e-mail is audited with the e-mail and the count', async () => {
    const deps = { db, tokens, lockout };
    const email = `lock-${randomUUID()}@example.test`;
    await attempt(deps, email, 'wrong');
    await attempt(deps, email, 'wrong');
    const { audits } = await attempt(deps, email, 'wrong');
    expect(audits).toContainEqual(expect.objectContaining({ audit: 'login.locked', email, failures: 3 }));
  });

  it('a server failure is not a refused login: no audit line, no LoginFailed metric', async () => {
    const { users } = await createTestTenant({ kpiTypes: [] });
    for (const failure of [new AppError('INTERNAL', 'broken'), new Error('broken')]) {
      const deps = {
        db,
        tokens,
        lockout,
        verifyPassword: async () => {
          throw failure;
        },
      };
      const { result, lines, audits } = await attempt(deps, users.ADMIN.email, users.ADMIN.password);
      expect(result).toBe(failure);
      expect(audits).toEqual([]);
      expect(metricsOf(lines)).toEqual([]);
    }
  });

  it('a failed read of the e-mail is a server failure, not an unknown e-mail: it passes on, unaudited', async () => {
    const { users } = await createTestTenant({ kpiTypes: [] });
    const probe = instrument(db, ({ name, input }) => {
      if (name === 'GetItemCommand' && String(input.Key?.pk?.S ?? input.Key?.pk).startsWith('EMAIL#')) {
        throw throttling();
      }
      return undefined;
    });
    const { result, audits } = await attempt({ db: probe.db, tokens, lockout }, users.ADMIN.email, 'wrong');
    expect(result).toMatchObject({ name: 'ThrottlingException' });
    expect(audits).toEqual([]);
  });
});

describe('refresh and logout', () => {
  it('a refresh token whose organization is gone gives 401, naming the account', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.tenant(tenant.id) }));
    await expect(refresh({ db, tokens }, users.EDITOR.refreshToken)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: 'The account of this token no longer exists.',
    });
  });

  it('a logout without options ends only its own session, audited with its user', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    const other = await startSession({ db, tokens }, users.VIEWER);
    const { lines } = await captureOutput(async () => {
      await logout({ db, tokens }, users.VIEWER.refreshToken);
      logger.info('the request ends');
    });
    logger.resetKeys();
    expect(lines.find((line) => line.message === 'the request ends')).toMatchObject({
      tenantId: tenant.id,
      userId: users.VIEWER.id,
    });
    expect(lines.filter((line) => line.audit)).toEqual([
      expect.objectContaining({
        audit: 'logout',
        everywhere: false,
        tenantId: tenant.id,
        userId: users.VIEWER.id,
      }),
    ]);
    await expect(refresh({ db, tokens }, users.VIEWER.refreshToken)).rejects.toBeInstanceOf(AppError);
    expect((await refresh({ db, tokens }, other.refreshToken)).token).toEqual(expect.any(String));
  });
});
