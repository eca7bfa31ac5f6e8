import { randomInt, randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler } from '../../../functions/login';
import { revokeAllSessions } from '../../../lib/auth/accounts';
import { type LoginThrottlePolicy, sourceOf } from '../../../lib/auth/login-throttle';
import { verifyPassword } from '../../../lib/auth/passwords';
import { login } from '../../../lib/auth/sign-in';
import { keys } from '../../../lib/db/keys';
import { readAttemptCounters, reserveAttempt } from '../../../lib/db/login-attempts';
import { normalizeEmail } from '../../../lib/db/users';
import { invoke } from '../../support/events';
import { createTestTenant, db, type TestUser, tokens } from '../../support/fixtures';
import { instrument } from '../../support/instrumented-db';
import { captureOutput, metricsOf } from '../../support/output';

/**
 * Login's brute-force protection (lib/auth/login-throttle.ts) as an attacker meets it. Through the
 * handler with the configured policy (10 failures per e-mail and source, 3 of them free of delay,
 * 100 per source, a ceiling of 1000 per e-mail, 15-minute windows); the timing cases through the
 * service with a clock the test moves, so every wait is exact however slow the machine is.
 */
/** A source address of its own for each caller: the per-source counters are shared by the whole file. */
const newSource = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

const post = (body: unknown, sourceIp: string) =>
  invoke(handler, { method: 'POST', path: '/api/auth/login', body, sourceIp });

const policy = (overrides: Partial<LoginThrottlePolicy> = {}): LoginThrottlePolicy => ({
  windowSeconds: 900,
  maxFailures: 10,
  maxFailuresPerSource: 100,
  emailCeiling: 1000,
  newDeviceAttemptsPerMinute: 10,
  freeFailures: 3,
  ...overrides,
});

/** The service with a moving clock and a password check that counts what it verifies. */
const service = (lockout: LoginThrottlePolicy) => {
  const clock = { now: Date.now() };
  const verified: string[] = [];
  const deps = {
    db,
    tokens,
    lockout,
    now: () => clock.now,
    verifyPassword: ((password, hash) => {
      verified.push(password);
      return verifyPassword(password, hash);
    }) as typeof verifyPassword,
  };
  const source = newSource();
  /** One login; a success gives the device token of this client. */
  const attempt = (email: string, password: string, sourceIp = source, deviceToken?: string) =>
    login(deps, { email, password, sourceIp, deviceToken }).then(
      (result) => ({ code: 'OK', headers: {}, message: '', deviceToken: result.deviceToken }),
      (error: { code: string; headers: Record<string, string>; message: string; deviceToken?: undefined }) =>
        error,
    );
  return { clock, verified, attempt, source, deps };
};

const expectLocked = (result: Awaited<ReturnType<typeof post>>, maxSeconds = 900) => {
  expect(result.status).toBe(429);
  expect(result.headers['content-type']).toBe('application/problem+json');
  expect(result.body.type).toMatch(/\/too-many-login-attempts$/);
  const retryAfter = Number(result.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
};

const countersOf = async (email: string, source: string) => {
  const [fromSource, ofSource, ofEmail] = await readAttemptCounters(
    db,
    [
      keys.loginAttemptsFromSource(normalizeEmail(email), source),
      keys.loginAttemptsOfSource(source),
      keys.loginAttemptsOfEmail(normalizeEmail(email)),
    ],
    { windowSeconds: 900 },
  );
  return { fromSource: fromSource?.count, ofSource: ofSource?.count, ofEmail: ofEmail?.count };
};

/** A fresh user per test, so no test inherits another's failures; `colleague` is of the same tenant. */
let user: TestUser;
let colleague: TestUser;
beforeEach(async () => {
  const { users } = await createTestTenant({ kpiTypes: [] });
  user = users.EDITOR;
  colleague = users.ADMIN;
});

describe('POST /auth/login lockout: the victim keeps their account', () => {
  it("the victim's correct login succeeds while an attacker keeps failing from another source", async () => {
    const attacker = newSource();
    const answers = [];
    for (let i = 0; i < 12; i++) {
      answers.push((await post({ email: user.email, password: `wrong-${i}` }, attacker)).status);
    }
    // The attacker's source is slowed down, then locked out: every answer a 401 or a 429.
    expect(answers.every((status) => status === 401 || status === 429)).toBe(true);
    expect(answers).toContain(429);
    // The victim, from their own address, is not refused because of the attacker.
    const victim = await post({ email: user.email, password: user.password }, newSource());
    expect(victim.status).toBe(200);
    expect(Object.keys(victim.body).sort()).toEqual(['deviceToken', 'expiresIn', 'refreshToken', 'token']);
  });

  it('a success forgets the failures of its own source, and gives back what it counted elsewhere', async () => {
    const { attempt, source } = service(policy());
    for (let i = 0; i < 3; i++) expect((await attempt(user.email, 'wrong')).code).toBe('INVALID_CREDENTIALS');
    expect(await countersOf(user.email, source)).toEqual({ fromSource: 3, ofSource: 3, ofEmail: 3 });
    expect((await attempt(user.email, user.password)).code).toBe('OK');
    // The source's failures for the e-mail are gone; those per source and per e-mail stay counted.
    expect(await countersOf(user.email, source)).toEqual({
      fromSource: undefined,
      ofSource: 3,
      ofEmail: 3,
    });
  });

  it('counts the e-mail case-insensitively', async () => {
    const { attempt } = service(policy({ freeFailures: 10 }));
    for (let i = 0; i < 10; i++) {
      const variant = i % 2 === 0 ? user.email.toUpperCase() : user.email;
      expect((await attempt(variant, 'wrong')).code).toBe('INVALID_CREDENTIALS');
    }
    expect(await attempt(user.email, user.password)).toMatchObject({ code: 'TOO_MANY_LOGIN_ATTEMPTS' });
  });
});

describe('POST /auth/login lockout: parallel guesses', () => {
  it('of 30 parallel wrong passwords from one source at most the limit (10) are verified, the rest get 429', async () => {
    const { verified, attempt, source } = service(policy({ freeFailures: 10 }));
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => attempt(user.email, `wrong-${i}`)),
    );
    const codes = results.map((result) => result.code);
    expect(verified.length).toBeLessThanOrEqual(10);
    expect(codes.filter((code) => code === 'INVALID_CREDENTIALS')).toHaveLength(verified.length);
    expect(codes.filter((code) => code === 'TOO_MANY_LOGIN_ATTEMPTS')).toHaveLength(30 - verified.length);
    // Refused attempts were never counted, or were given back where a parallel one beat them to the
    // last reservation: every window holds exactly the verified ones.
    expect(await countersOf(user.email, source)).toEqual({
      fromSource: verified.length,
      ofSource: verified.length,
      ofEmail: verified.length,
    });
  });

  it('30 parallel wrong passwords through the handler: at most the 3 free ones and the one that starts the delay are answered 401, the rest 429', async () => {
    const attacker = newSource();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => post({ email: user.email, password: `wrong-${i}` }, attacker)),
    );
    const unauthorized = results.filter((r) => r.status === 401).length;
    expect(unauthorized).toBeLessThanOrEqual(4);
    for (const result of results.filter((r) => r.status !== 401)) expectLocked(result);
    expectLocked(await post({ email: user.email, password: user.password }, attacker));
  });
});

describe('POST /auth/login lockout: parallel guesses and the progressive delay', () => {
  it('cannot skip the delay: of 30 parallel guesses only the free ones and the one that starts the delay are verified', async () => {
    const { clock, verified, attempt, source } = service(policy());
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => attempt(user.email, `wrong-${i}`)),
    );
    const codes = results.map((result) => result.code);
    // The fourth reservation set the 1 s delay in the same write that counted it.
    expect(verified).toHaveLength(4);
    expect(codes.filter((code) => code === 'INVALID_CREDENTIALS')).toHaveLength(verified.length);
    const refused = results.filter((result) => result.code === 'TOO_MANY_LOGIN_ATTEMPTS');
    expect(refused).toHaveLength(30 - verified.length);
    expect(await countersOf(user.email, source)).toMatchObject({ fromSource: verified.length });
    // Still within the delay, the right password is refused too, before it is verified.
    expect(await attempt(user.email, user.password)).toMatchObject({
      code: 'TOO_MANY_LOGIN_ATTEMPTS',
      message: 'Wait before the next login for this e-mail from this address. Try again in 1 second.',
    });
    clock.now += 1000;
    // The next wave after the delay: one more verification, which doubles it.
    const next = await Promise.all(Array.from({ length: 10 }, () => attempt(user.email, 'wrong')));
    expect(next.filter((result) => result.code === 'INVALID_CREDENTIALS')).toHaveLength(1);
    expect(verified).toHaveLength(5);
    clock.now += 1999;
    expect(await attempt(user.email, user.password)).toMatchObject({ code: 'TOO_MANY_LOGIN_ATTEMPTS' });
    clock.now += 1;
    expect((await attempt(user.email, user.password)).code).toBe('OK');
  });
});

describe('POST /auth/login lockout: progressive delay and windows', () => {
  it('three failures are free; then the source waits 1 s, 2 s, 4 s… and the attempt that waited is verified', async () => {
    const { clock, verified, attempt } = service(policy());
    for (let i = 0; i < 3; i++) expect((await attempt(user.email, 'wrong')).code).toBe('INVALID_CREDENTIALS');
    // The fourth failure starts the delay.
    expect((await attempt(user.email, 'wrong')).code).toBe('INVALID_CREDENTIALS');
    for (const wait of [1, 2, 4]) {
      const early = await attempt(user.email, user.password);
      expect(early).toMatchObject({
        code: 'TOO_MANY_LOGIN_ATTEMPTS',
        headers: { 'Retry-After': String(wait) },
      });
      expect(early.message).toBe(
        `Wait before the next login for this e-mail from this address. Try again in ${wait} ${wait === 1 ? 'second' : 'seconds'}.`,
      );
      clock.now += wait * 1000;
      expect((await attempt(user.email, 'wrong')).code).toBe('INVALID_CREDENTIALS');
    }
    // A refused attempt is not verified and not counted: 7 failures, 7 verifications.
    expect(verified).toHaveLength(7);
    clock.now += 8000;
    expect((await attempt(user.email, user.password)).code).toBe('OK');
  });

  it('after 10 failures the source gets 429 until the window ends, then starts again', async () => {
    const { clock, verified, attempt } = service(policy({ windowSeconds: 60, freeFailures: 10 }));
    for (let i = 0; i < 10; i++)
      expect((await attempt(user.email, 'wrong')).code).toBe('INVALID_CREDENTIALS');
    clock.now += 30_000;
    for (const password of [user.password, 'wrong']) {
      expect(await attempt(user.email, password)).toMatchObject({
        code: 'TOO_MANY_LOGIN_ATTEMPTS',
        headers: { 'Retry-After': '30' },
        message: 'Too many failed logins for this e-mail from this address. Try again in 30 seconds.',
      });
    }
    // Attempts while locked are refused before verification and do not extend the window.
    expect(verified).toHaveLength(10);
    clock.now += 30_000;
    // DynamoDB Local never deletes the expired items: the window check alone must admit the login.
    expect((await attempt(user.email, user.password)).code).toBe('OK');
  });

  it('locks an unknown e-mail the same way, so the lockout does not reveal whether an account exists', async () => {
    const unknown = `nobody-${randomUUID()}@example.test`;
    const { attempt } = service(policy({ freeFailures: 10 }));
    for (let i = 0; i < 10; i++) {
      expect((await attempt(unknown, 'x')).code).toBe('INVALID_CREDENTIALS');
      expect((await attempt(user.email, 'x')).code).toBe('INVALID_CREDENTIALS');
    }
    const [a, b] = [await attempt(unknown, 'x'), await attempt(user.email, 'x')];
    expect(a).toMatchObject({ code: 'TOO_MANY_LOGIN_ATTEMPTS' });
    expect(b).toMatchObject({ code: 'TOO_MANY_LOGIN_ATTEMPTS' });
    expect({ message: a.message, headers: a.headers }).toEqual({ message: b.message, headers: b.headers });
  });
});

describe('POST /auth/login lockout: one source, many e-mails', () => {
  it('a source that fails across e-mails gets 429 for every e-mail once it reaches its limit; other sources do not', async () => {
    const { attempt, source } = service(policy({ maxFailuresPerSource: 5 }));
    const locks = [];
    for (let i = 0; i < 5; i++) {
      const { result, lines } = await captureOutput(() =>
        attempt(`spray-${i}-${randomUUID()}@example.test`, 'Winter2026!'),
      );
      expect(result.code).toBe('INVALID_CREDENTIALS');
      locks.push(lines.filter((line) => line.audit === 'login.source-locked'));
    }
    // The failure that reaches the limit says so in the audit log, once.
    expect(locks.map((lines) => lines.length)).toEqual([0, 0, 0, 0, 1]);
    expect(locks[4]?.[0]).toMatchObject({ sourceIp: source });
    expect(await attempt(user.email, user.password)).toMatchObject({
      code: 'TOO_MANY_LOGIN_ATTEMPTS',
      message: expect.stringMatching(
        /^Too many failed logins from this address\. Try again in \d+ seconds\.$/,
      ),
    });
    expect((await attempt(user.email, user.password, newSource())).code).toBe('OK');
  });

  it('an IPv6 source is counted by its /64: the next address of the same subscriber is the same source', async () => {
    const { attempt } = service(policy({ maxFailuresPerSource: 2 }));
    expect((await attempt(`a-${randomUUID()}@example.test`, 'x', '2001:db8:1:2::1')).code).toBe(
      'INVALID_CREDENTIALS',
    );
    expect((await attempt(`b-${randomUUID()}@example.test`, 'x', '2001:db8:1:2:ffff::2')).code).toBe(
      'INVALID_CREDENTIALS',
    );
    expect(await attempt(user.email, user.password, '2001:0db8:0001:0002::3')).toMatchObject({
      code: 'TOO_MANY_LOGIN_ATTEMPTS',
    });
    expect((await attempt(user.email, user.password, '2001:db8:1:3::1')).code).toBe('OK');
  });
});

describe('POST /auth/login lockout: a distributed attack, and device tokens past the ceiling', () => {
  it('reaching the ceiling alerts (metric and audit line), once', async () => {
    const { attempt } = service(policy({ emailCeiling: 4 }));
    const outputs = [];
    for (let i = 1; i <= 4; i++) {
      const { result, lines } = await captureOutput(() => attempt(user.email, 'guess', `198.18.0.${i}`));
      expect(result.code).toBe('INVALID_CREDENTIALS');
      outputs.push(lines);
    }
    const alerts = outputs.map((lines) => metricsOf(lines).filter((m) => m.name === 'LoginCeilingReached'));
    // Once, by the failure that reached the ceiling, with no dimension but the service's.
    expect(alerts.map((list) => list.length)).toEqual([0, 0, 0, 1]);
    expect(alerts[3]?.[0]).toMatchObject({
      value: 1,
      namespace: 'StrategyService',
      dimensions: { service: 'strategy-service' },
    });
    expect(outputs[3]).toContainEqual(
      expect.objectContaining({ audit: 'login.ceiling-reached', email: user.email }),
    );
  });

  it('past it, a device that signed in before gets in at once; every other device, from any address, shares N attempts a minute', async () => {
    const { attempt, clock } = service(policy({ emailCeiling: 4, newDeviceAttemptsPerMinute: 2 }));
    // The victim signed in from their laptop before the attack: the laptop holds a device token.
    const laptop = (await attempt(user.email, user.password, '192.0.2.10')).deviceToken as string;
    for (let i = 1; i <= 4; i++) {
      expect((await attempt(user.email, 'guess', `198.18.0.${i}`)).code).toBe('INVALID_CREDENTIALS');
    }
    // Fresh addresses gain nothing: together they get 2 guesses this minute, then 429 until it ends.
    expect((await attempt(user.email, 'guess', '198.18.1.1')).code).toBe('INVALID_CREDENTIALS');
    expect((await attempt(user.email, 'guess', '198.18.1.2')).code).toBe('INVALID_CREDENTIALS');
    for (const address of ['198.18.1.3', '198.18.1.4']) {
      expect(await attempt(user.email, 'guess', address)).toMatchObject({
        code: 'TOO_MANY_LOGIN_ATTEMPTS',
        headers: { 'Retry-After': '60' },
        message:
          'Too many failed logins for this e-mail: a device that has not signed in to it waits its turn. Try again in 60 seconds.',
      });
    }
    // The victim's new phone waits too, even with the right password (refused before it is verified)…
    expect((await attempt(user.email, user.password, '203.0.113.50')).code).toBe('TOO_MANY_LOGIN_ATTEMPTS');
    // …while the laptop gets in at once, also from an address the attack used: only the per-source
    // rules apply to it.
    const again = await attempt(user.email, user.password, '198.18.0.1', laptop);
    expect(again.code).toBe('OK');
    // Each sign-in gives the device a new token.
    expect(again.deviceToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(again.deviceToken).not.toBe(laptop);
    // A minute later the phone gets its turn.
    clock.now += 60_000;
    expect((await attempt(user.email, user.password, '203.0.113.50')).code).toBe('OK');
  });

  it('a device token counts only for its own account and only while valid: not a colleague’s, a refresh token, a forged, expired or revoked one', async () => {
    const { attempt } = service(policy({ emailCeiling: 1, newDeviceAttemptsPerMinute: 1 }));
    const own = (await attempt(user.email, user.password, '192.0.2.20')).deviceToken as string;
    const colleagues = (await attempt(colleague.email, colleague.password, '192.0.2.21'))
      .deviceToken as string;
    const { refreshToken } = await login(
      { db, tokens, lockout: policy() },
      { email: user.email, password: user.password, sourceIp: '192.0.2.22' },
    );
    const expired = await tokens.issueDeviceToken(
      { userId: user.id, tokenVersion: 0 },
      Math.floor(Date.now() / 1000) - 91 * 86_400,
    );
    const [head, payload] = own.split('.');
    const forged = `${head}.${payload}.${'A'.repeat(42)}A`;
    // The ceiling, and the minute's one new-device attempt.
    expect((await attempt(user.email, 'guess', '198.18.2.1')).code).toBe('INVALID_CREDENTIALS');
    expect((await attempt(user.email, 'guess', '198.18.2.2')).code).toBe('INVALID_CREDENTIALS');
    for (const [name, token] of Object.entries({ colleagues, refreshToken, expired, forged, garbage: 'x' })) {
      // Not an error: the attempt is a new device's, and the minute is used up.
      expect((await attempt(user.email, user.password, '203.0.113.60', token)).code, name).toBe(
        'TOO_MANY_LOGIN_ATTEMPTS',
      );
    }
    // A new password (or disabling, a demotion, signing out everywhere) raises the token version: every
    // device token of the user stops counting.
    await revokeAllSessions(db, user.tenantId, user.id);
    expect((await attempt(user.email, user.password, '203.0.113.61', own)).code).toBe(
      'TOO_MANY_LOGIN_ATTEMPTS',
    );
  });

  it('with its own valid device token the user gets in past the ceiling while the minute is used up', async () => {
    const { attempt } = service(policy({ emailCeiling: 1, newDeviceAttemptsPerMinute: 1 }));
    const own = (await attempt(user.email, user.password, '192.0.2.30')).deviceToken as string;
    expect((await attempt(user.email, 'guess', '198.18.3.1')).code).toBe('INVALID_CREDENTIALS');
    expect((await attempt(user.email, 'guess', '198.18.3.2')).code).toBe('INVALID_CREDENTIALS');
    expect((await attempt(user.email, user.password, '203.0.113.70', own)).code).toBe('OK');
  });

  it('a device token that keeps failing past the ceiling is a new device again: a stolen token is no way around it', async () => {
    const { attempt } = service(policy({ emailCeiling: 1, newDeviceAttemptsPerMinute: 1, maxFailures: 3 }));
    const stolen = (await attempt(user.email, user.password, '192.0.2.40')).deviceToken as string;
    expect((await attempt(user.email, 'guess', '198.18.4.1')).code).toBe('INVALID_CREDENTIALS');
    expect((await attempt(user.email, 'guess', '198.18.4.2')).code).toBe('INVALID_CREDENTIALS');
    // From fresh addresses with the token: its own 3 failures, then it counts for nothing.
    for (let i = 1; i <= 3; i++) {
      expect((await attempt(user.email, 'guess', `198.18.5.${i}`, stolen)).code).toBe('INVALID_CREDENTIALS');
    }
    expect(await attempt(user.email, 'guess', '198.18.5.4', stolen)).toMatchObject({
      code: 'TOO_MANY_LOGIN_ATTEMPTS',
      message: expect.stringMatching(
        /^Too many failed logins for this e-mail: a device that has not signed in/,
      ),
    });
  });

  it('past it, of 20 parallel guesses from 20 addresses without a device token at most N are verified', async () => {
    const { attempt, verified } = service(policy({ emailCeiling: 1, newDeviceAttemptsPerMinute: 3 }));
    expect((await attempt(user.email, 'guess', '198.18.6.1')).code).toBe('INVALID_CREDENTIALS');
    verified.length = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => attempt(user.email, `guess-${i}`, `198.18.7.${i + 1}`)),
    );
    expect(verified.length).toBeLessThanOrEqual(3);
    expect(results.filter((result) => result.code === 'INVALID_CREDENTIALS')).toHaveLength(verified.length);
    expect(results.filter((result) => result.code === 'TOO_MANY_LOGIN_ATTEMPTS')).toHaveLength(
      20 - verified.length,
    );
  });

  it('judges an unknown e-mail exactly like a known one past the ceiling', async () => {
    const unknown = `nobody-${randomUUID()}@example.test`;
    const { attempt } = service(policy({ emailCeiling: 1, newDeviceAttemptsPerMinute: 1 }));
    const answers = [];
    for (const email of [unknown, user.email]) {
      expect((await attempt(email, 'guess', '198.18.8.1')).code).toBe('INVALID_CREDENTIALS');
      expect((await attempt(email, 'guess', '198.18.8.2')).code).toBe('INVALID_CREDENTIALS');
      answers.push(await attempt(email, 'guess', '198.18.8.3'));
    }
    expect(answers[0]).toMatchObject({ code: 'TOO_MANY_LOGIN_ATTEMPTS' });
    expect(answers[0]).toEqual(answers[1]);
  });
});

describe('POST /auth/login lockout: attempts that lose a race past the ceiling', () => {
  type Key = { pk: string; sk: string };
  /** The table through a client on which another attempt reserves on `key` (up to `limit`) just before this one does. */
  const overtakenOn = (key: Key, limit: number) => {
    let done = false;
    return instrument(db, async ({ name, input }) => {
      if (!done && name === 'UpdateItemCommand' && input.Key.pk === key.pk && input.Key.sk === key.sk) {
        done = true;
        await reserveAttempt(db, key, { windowSeconds: 900, now: Date.now(), limit });
      }
      return undefined;
    }).db;
  };
  const email = () => normalizeEmail(user.email);
  const counterOf = async (key: Key) =>
    (await readAttemptCounters(db, [key], { windowSeconds: 900 }))[0]?.count;
  const deviceKeyOf = (token: string) => keys.loginAttemptsOfDevice(email(), decodeJwt(token).jti as string);

  it('refused for the address that filled up meanwhile, and what it reserved past the ceiling is given back', async () => {
    const { attempt, deps } = service(
      policy({ emailCeiling: 1, maxFailuresPerSource: 1, newDeviceAttemptsPerMinute: 1 }),
    );
    const laptop = (await attempt(user.email, user.password, '192.0.2.80')).deviceToken as string;
    expect((await attempt(user.email, 'guess', '198.18.9.1')).code).toBe('INVALID_CREDENTIALS');
    // With the laptop's token, and as a new device: each takes its place past the ceiling, then finds
    // its address used up by another attempt.
    for (const [sourceIp, deviceToken] of [
      ['198.18.9.2', laptop],
      ['198.18.9.3', undefined],
    ] as const) {
      const racing = overtakenOn(keys.loginAttemptsOfSource(sourceOf(sourceIp)), 1);
      await expect(
        login({ ...deps, db: racing }, { email: user.email, password: user.password, sourceIp, deviceToken }),
      ).rejects.toMatchObject({
        code: 'TOO_MANY_LOGIN_ATTEMPTS',
        message: expect.stringMatching(/^Too many failed logins from this address\./),
      });
    }
    expect(await counterOf(deviceKeyOf(laptop))).toBe(0);
    expect(await counterOf(keys.loginAttemptsOfNewDevices(email()))).toBe(0);
    // The minute's one new-device attempt is still there.
    expect((await attempt(user.email, 'guess', '198.18.9.4')).code).toBe('INVALID_CREDENTIALS');
  });

  it('a device token whose last failure another attempt took is refused for that device', async () => {
    const { attempt, deps } = service(
      policy({ emailCeiling: 1, maxFailures: 2, newDeviceAttemptsPerMinute: 1 }),
    );
    const laptop = (await attempt(user.email, user.password, '192.0.2.81')).deviceToken as string;
    expect((await attempt(user.email, 'guess', '198.18.10.1')).code).toBe('INVALID_CREDENTIALS');
    expect((await attempt(user.email, 'guess', '198.18.10.2', laptop)).code).toBe('INVALID_CREDENTIALS');
    const racing = overtakenOn(deviceKeyOf(laptop), 2);
    await expect(
      login(
        { ...deps, db: racing },
        { email: user.email, password: user.password, sourceIp: '198.18.10.3', deviceToken: laptop },
      ),
    ).rejects.toMatchObject({
      code: 'TOO_MANY_LOGIN_ATTEMPTS',
      message: expect.stringMatching(/^Too many failed logins for this e-mail from this device\./),
    });
    expect(await counterOf(deviceKeyOf(laptop))).toBe(2);
  });

  it('a device token’s sign-in gives back its place: it fails no closer to its limit', async () => {
    const { attempt } = service(policy({ emailCeiling: 1, maxFailures: 2, newDeviceAttemptsPerMinute: 1 }));
    const laptop = (await attempt(user.email, user.password, '192.0.2.82')).deviceToken as string;
    expect((await attempt(user.email, 'guess', '198.18.11.1')).code).toBe('INVALID_CREDENTIALS');
    // The minute's new-device attempt is used up: past its limit, the token would count for nothing.
    expect((await attempt(user.email, 'guess', '198.18.11.2')).code).toBe('INVALID_CREDENTIALS');
    expect((await attempt(user.email, 'guess', '198.18.11.3', laptop)).code).toBe('INVALID_CREDENTIALS');
    expect((await attempt(user.email, user.password, '198.18.11.4', laptop)).code).toBe('OK');
    expect(await counterOf(deviceKeyOf(laptop))).toBe(1);
    expect((await attempt(user.email, 'guess', '198.18.11.5', laptop)).code).toBe('INVALID_CREDENTIALS');
  });

  it('an unknown e-mail with a device token of another account is judged as without one', async () => {
    const { attempt } = service(policy());
    const laptop = (await attempt(user.email, user.password, '192.0.2.83')).deviceToken as string;
    const unknown = `nobody-${randomUUID()}@example.test`;
    expect((await attempt(unknown, 'guess', '198.18.12.1', laptop)).code).toBe('INVALID_CREDENTIALS');
  });
});
