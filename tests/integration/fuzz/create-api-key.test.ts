import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as createHandler } from '../../../functions/create-api-key';
import { keys } from '../../../lib/db/keys';
import { bearer, createTestTenant, type TestTenant } from '../../support/fixtures';
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
beforeAll(async () => {
  // Enterprise: no key maximum, so every accepted sample makes a key.
  tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI'] });
});

describe('fuzz: POST /api-keys', () => {
  it(
    'any body in any event shape: never 5xx, every 4xx a problem document, a key stored only for a 201',
    async () => {
      const valid = fc.record({
        name: fc.string({ minLength: 1, maxLength: 100 }),
        expiresAt: fc.oneof(
          fc.constant(null),
          fc
            .date({ min: new Date('2030-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
            .map((d) => d.toISOString()),
          fc.constantFrom('2027-02-30T00:00:00Z', '2020-01-01T00:00:00Z', 'tomorrow', '2030-01-01'),
        ),
      });
      const body = fc.oneof(valid, nearMiss(valid), hostileBody);
      const created = new Set<string>();
      const before = await storedData();
      await fc.assert(
        fc.asyncProperty(
          body.chain((value) => eventAround(value, bearer(tenant.users.ADMIN.token))),
          async (event) => {
            const result = await call(createHandler, event);
            expectSound(result);
            if (result.status === 201) {
              created.add(result.body.id);
              expect(result.body.key).toMatch(/^skm_/);
            }
          },
        ),
        fuzzOptions(RUNS),
      );
      // Each key with its audit event, nothing else.
      const changed = [...changedItems(before, await storedData())];
      expect(changed.filter((key) => key.endsWith(`|${keys.apiKey('x').sk}`))).toHaveLength(created.size);
      expect(changed.filter((key) => key.startsWith('AUDIT#'))).toHaveLength(created.size);
      expect(
        changed.every((key) => key.endsWith(`|${keys.apiKey('x').sk}`) || key.startsWith('AUDIT#')),
      ).toBe(true);
    },
    fuzzTimeout(RUNS),
  );
});
