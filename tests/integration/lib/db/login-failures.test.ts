import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getLoginFailures, recordLoginFailure } from '../../../../lib/db/login-failures';
import { injectFaults } from '../../../support/faults';
import { db } from '../../../support/fixtures';

describe('failed logins of an e-mail (lib/db/login-failures.ts)', () => {
  it('counts failures in one window that opens at the first', async () => {
    const email = `${randomUUID()}@example.test`;
    const now = Date.now();
    expect(await recordLoginFailure(db, email, { windowSeconds: 60, now })).toEqual({
      count: 1,
      windowEndsAt: now + 60_000,
    });
    expect(
      await recordLoginFailure(db, email, { windowSeconds: 60, now: now + 1, windowOpen: true }),
    ).toEqual({
      count: 2,
      windowEndsAt: now + 60_000,
    });
    expect(await getLoginFailures(db, email, { windowSeconds: 60, now: now + 2 })).toEqual({
      count: 2,
      windowEndsAt: now + 60_000,
    });
  });

  it('gives up with an error naming the cause when every conditional update is refused', async () => {
    const email = `${randomUUID()}@example.test`;
    let refused = 0;
    const remove = injectFaults(db, (operation, input) => {
      if (operation !== 'UpdateItemCommand' || !JSON.stringify(input).includes(email)) return undefined;
      refused++;
      return Object.assign(new Error('The conditional request failed'), {
        name: 'ConditionalCheckFailedException',
      });
    });
    try {
      const error = await recordLoginFailure(db, email, { windowSeconds: 60 }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toBe('Could not record a failed login: the window kept changing.');
      expect(error?.cause).toMatchObject({ name: 'ConditionalCheckFailedException' });
      expect(refused).toBe(4);
    } finally {
      remove();
    }
  });
});
