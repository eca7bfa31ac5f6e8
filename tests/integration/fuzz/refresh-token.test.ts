import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as refreshHandler } from '../../../functions/refresh-token';
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

const RUNS = 60;
let tenant: TestTenant;
let refreshToken: string;
beforeAll(async () => {
  tenant = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
  refreshToken = tenant.users.VIEWER.refreshToken;
});

/** A token with one character changed, dropped or added: a forgery attempt in its least visible form. */
const mangled = (token: string) =>
  fc
    .record({ at: fc.nat({ max: token.length - 1 }), char: fc.constantFrom('A', '_', '-', '.', '=', ' ') })
    .map(({ at, char }) => token.slice(0, at) + char + token.slice(at + 1));

describe('fuzz: POST /auth/refresh-token', () => {
  it(
    'any body in any event shape: never 5xx, every 4xx a problem document, 200 only for the real token',
    async () => {
      const body = fc.oneof(
        fc.record({ refreshToken: fc.oneof(fc.constant(refreshToken), mangled(refreshToken), fc.string()) }),
        nearMiss(fc.constant({ refreshToken })),
        hostileBody,
      );
      const before = await storedData();
      await fc.assert(
        fc.asyncProperty(
          body.chain((value) => eventAround(value).map((event) => ({ value, event }))),
          async ({ value, event }) => {
            const result = await call(refreshHandler, event);
            expectSound(result);
            if (result.status === 200) {
              expect((value as { refreshToken?: unknown }).refreshToken).toBe(refreshToken);
              expect(Object.keys(result.body).sort()).toEqual(['expiresIn', 'token']);
            }
          },
        ),
        fuzzOptions(RUNS),
      );
      expect([...changedItems(before, await storedData())]).toEqual([]);
    },
    fuzzTimeout(RUNS),
  );
});
