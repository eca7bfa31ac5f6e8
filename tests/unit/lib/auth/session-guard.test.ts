import { describe, expect, it } from 'vitest';
import { revocationReason } from '../../../../lib/auth/accounts';
import { createSessionGuard, MAX_SESSION_CACHE_SECONDS } from '../../../../lib/auth/session-guard';
import type { UserPrincipal } from '../../../../lib/auth/tokens';
import type { SessionState } from '../../../../lib/db/sessions';
import { isDemotion, type User } from '../../../../lib/domain/user';

const principal: UserPrincipal = {
  userId: 'u1',
  tenantId: 't1',
  role: 'ADMIN',
  email: 'a@example.test',
  sessionId: 's1',
  tokenVersion: 2,
};

const user: User = {
  id: 'u1',
  tenantId: 't1',
  email: 'a@example.test',
  role: 'ADMIN',
  disabled: false,
  name: null,
  passwordHash: 'x',
  linkHash: null,
  invitedBy: null,
  lastSignInAt: null,
  tokenVersion: 2,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const live = (): SessionState => ({
  user: { ...user },
  tenant: {
    id: 't1',
    name: 'T',
    plan: 'business',
    features: [],
    active: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  },
  session: {
    id: 's1',
    userId: 'u1',
    tenantId: 't1',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: 2_000_000_000,
  },
});

/** A guard over a store the test changes, with a clock it moves; `reads` counts the loads. */
const setup = (ttlSeconds: number) => {
  const store = { state: live() };
  const clock = { now: 1_800_000_000_000 };
  let reads = 0;
  const guard = createSessionGuard({
    ttlSeconds,
    now: () => clock.now,
    load: async () => {
      reads += 1;
      return structuredClone(store.state);
    },
  });
  const outcome = (who: UserPrincipal = principal) =>
    guard.check(who).then(
      () => 'allowed',
      (error: { code: string; message: string; headers: Record<string, string> }) => error.message,
    );
  return { store, clock, guard, outcome, reads: () => reads };
};

describe('the session check of every JWT request', () => {
  it('allows a token of a live session whose user, version, role and tenant still match', async () => {
    expect(await setup(30).outcome()).toBe('allowed');
  });

  it('refuses a token whose session ended, whose account is gone, or whose version was raised', async () => {
    const cases: [string, (state: SessionState) => void][] = [
      ['The session has ended. Sign in again.', (state) => delete state.session],
      [
        'The session has ended. Sign in again.',
        (state) => {
          (state.session as { userId: string }).userId = 'someone-else';
        },
      ],
      ['The account of this token no longer exists.', (state) => delete state.user],
      [
        'The token has been revoked. Sign in again.',
        (state) => {
          (state.user as User).tokenVersion = 3;
        },
      ],
      [
        'The role of this account changed. Refresh the token.',
        (state) => {
          (state.user as User).role = 'VIEWER';
        },
      ],
      [
        'This account is disabled.',
        (state) => {
          (state.user as User).disabled = true;
        },
      ],
      [
        'The organization of this account is inactive.',
        (state) => {
          (state.tenant as { active: boolean }).active = false;
        },
      ],
      ['The organization of this account is inactive.', (state) => delete state.tenant],
    ];
    for (const [message, change] of cases) {
      const { store, guard } = setup(0);
      change(store.state);
      await expect(guard.check(principal), message).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
        message,
        headers: { 'WWW-Authenticate': 'Bearer realm="strategy-service", error="invalid_token"' },
      });
    }
  });

  it('reads the state once per session within the cache time, and again once it has passed', async () => {
    const { clock, outcome, reads, store } = setup(30);
    expect(await outcome()).toBe('allowed');
    expect(await outcome()).toBe('allowed');
    expect(reads()).toBe(1);
    // Revoked meanwhile: a request within the cache time may still pass, the first one after it not.
    (store.state.user as User).tokenVersion = 3;
    clock.now += 29_999;
    expect(await outcome()).toBe('allowed');
    expect(reads()).toBe(1);
    clock.now += 1;
    expect(await outcome()).toBe('The token has been revoked. Sign in again.');
    expect(reads()).toBe(2);
  });

  it('never trusts a read longer than 60 s, whatever it is configured to', async () => {
    expect(MAX_SESSION_CACHE_SECONDS).toBe(60);
    const { clock, outcome, reads } = setup(3600);
    await outcome();
    clock.now += 59_999;
    await outcome();
    expect(reads()).toBe(1);
    clock.now += 1;
    await outcome();
    expect(reads()).toBe(2);
  });

  it('with a cache time of 0, reads the state at every request', async () => {
    const { outcome, reads } = setup(0);
    await outcome();
    await outcome();
    expect(reads()).toBe(2);
  });

  it('keeps one entry per session: another session of the same user is read on its own', async () => {
    const { outcome, reads } = setup(30);
    await outcome();
    await outcome({ ...principal, sessionId: 's2' });
    await outcome({ ...principal, userId: 'u2' });
    await outcome({ ...principal, tenantId: 't2' });
    expect(reads()).toBe(4);
  });

  it('lets concurrent requests of one session share one read, and forgets a read that failed', async () => {
    let reads = 0;
    let fail = true;
    const guard = createSessionGuard({
      ttlSeconds: 30,
      load: async () => {
        reads += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (fail) throw new Error('unavailable');
        return live();
      },
    });
    const first = await Promise.allSettled([guard.check(principal), guard.check(principal)]);
    expect(first.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(reads).toBe(1);
    fail = false;
    await guard.check(principal);
    await guard.check(principal);
    expect(reads).toBe(2);
  });

  it('forgets the oldest sessions beyond 10,000, so a container’s memory stays bounded', async () => {
    const { outcome, reads } = setup(30);
    for (let i = 0; i <= 10_000; i++) await outcome({ ...principal, sessionId: `s${i}` });
    expect(reads()).toBe(10_001);
    // The newest and the second oldest are still cached: exactly 10,000 are kept.
    await outcome({ ...principal, sessionId: 's10000' });
    await outcome({ ...principal, sessionId: 's1' });
    expect(reads()).toBe(10_001);
    await outcome({ ...principal, sessionId: 's0' });
    expect(reads()).toBe(10_002);
  });
});

describe('what ends every session of a user', () => {
  it('a demotion, not a promotion nor the same role', () => {
    expect(isDemotion('ADMIN', 'EDITOR')).toBe(true);
    expect(isDemotion('ADMIN', 'VIEWER')).toBe(true);
    expect(isDemotion('EDITOR', 'VIEWER')).toBe(true);
    expect(isDemotion('VIEWER', 'EDITOR')).toBe(false);
    expect(isDemotion('EDITOR', 'ADMIN')).toBe(false);
    expect(isDemotion('ADMIN', 'ADMIN')).toBe(false);
  });

  it('disabling an enabled user, a demotion or a new password; nothing else', () => {
    expect(revocationReason(user, { disabled: true })).toBe('disabled');
    expect(revocationReason({ ...user, disabled: true }, { disabled: true })).toBeUndefined();
    expect(revocationReason(user, { disabled: false })).toBeUndefined();
    expect(revocationReason(user, { role: 'EDITOR' })).toBe('demoted');
    expect(revocationReason({ ...user, role: 'VIEWER' }, { role: 'ADMIN' })).toBeUndefined();
    expect(revocationReason(user, { passwordHash: 'new' })).toBe('password-changed');
    expect(revocationReason(user, {})).toBeUndefined();
  });
});
