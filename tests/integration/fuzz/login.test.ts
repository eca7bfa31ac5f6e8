import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as loginHandler } from '../../../functions/login';
import { createTestTenant, type TestTenant } from '../../support/fixtures';
import {
  call,
  changedItems,
  eventAround,
  expectSound,
  fuzzOptions,
  fuzzTimeout,
  hostileBody,
  nearMiss,
  storedData,
} from '../../support/fuzz';

const RUNS = 40;
let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
});

describe('fuzz: POST /auth/login', () => {
  it(
    'any body in any event shape: never 5xx, every 4xx a problem document, nothing stored',
    async () => {
      const user = tenant.users.EDITOR;
      const credentials = fc.record({
        email: fc.oneof(fc.constant(user.email), fc.emailAddress(), fc.constant(user.email.toUpperCase())),
        password: fc.oneof(fc.constant(user.password), fc.string({ maxLength: 40 })),
      });
      const body = fc.oneof(credentials, nearMiss(credentials), hostileBody);
      const before = await storedData();
      let loggedIn = 0;
      await fc.assert(
        fc.asyncProperty(
          body.chain((value) => eventAround(value)),
          async (event) => {
            const result = await call(loginHandler, event);
            expectSound(result);
            if (result.status === 200) {
              loggedIn += 1;
              expect(Object.keys(result.body).sort()).toEqual([
                'deviceToken',
                'expiresIn',
                'refreshToken',
                'token',
              ]);
            }
          },
        ),
        fuzzOptions(RUNS),
      );
      // A login writes its attempt counters (left out of storedData: the lockout, by design), its audit
      // event when the e-mail is an account's, and, when it succeeds, its session and the user's
      // `lastSignInAt`; nothing else.
      const after = await storedData();
      const changed = [...changedItems(before, after)];
      const events = changed.filter((key) => key.startsWith('AUDIT#'));
      const others = changed.filter((key) => !key.startsWith('AUDIT#'));
      const sessions = others.filter((key) => /^SESSION#[^|]+\|SESSION$/.test(key));
      const signedIn = others.filter((key) => /^TENANT#[^|]+\|USER#[^|]+$/.test(key));
      expect(sessions.length + signedIn.length).toBe(others.length);
      expect(sessions).toHaveLength(loggedIn);
      const types = events.map((key) => JSON.parse(after.get(key)!).eventType as string);
      expect(types.every((type) => type.startsWith('login.'))).toBe(true);
      expect(types.filter((type) => type === 'login.succeeded')).toHaveLength(loggedIn);
    },
    fuzzTimeout(RUNS),
  );
});
