import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GetCommand } from '../../../../lib/db/dynamo';
import { keys } from '../../../../lib/db/keys';
import { getLoginFailures, recordLoginFailure } from '../../../../lib/db/login-failures';
import { injectFaults } from '../../../support/faults';
import { db } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

/** Answers every UpdateItem of this e-mail with an error named `name`; counts them. */
const refuseUpdates = (email: string, name: string, message: string) => {
  let count = 0;
  const remove = injectFaults(db, (operation, input) => {
    if (operation !== 'UpdateItemCommand' || !JSON.stringify(input).includes(email)) return undefined;
    count++;
    return Object.assign(new Error(message), { name });
  });
  return { count: () => count, remove };
};

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
    // DynamoDB's TTL (in seconds) removes the item once its window has passed.
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.loginFailures(email) }),
    );
    expect(Item?.ttl).toBe(Math.ceil((now + 60_000) / 1000));
  });

  it('passes on a refusal that is not a condition at once, without trying the other update', async () => {
    const email = `${randomUUID()}@example.test`;
    const refused = refuseUpdates(email, 'ResourceNotFoundException', 'Requested resource not found');
    try {
      await expect(recordLoginFailure(db, email, { windowSeconds: 60 })).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
      });
      expect(refused.count()).toBe(1);
    } finally {
      refused.remove();
    }
  });

  it('without word of an open window, tries the update that opens one first: one write for a first failure', async () => {
    const probe = instrument(db);
    await recordLoginFailure(probe.db, `${randomUUID()}@example.test`, { windowSeconds: 60 });
    expect(probe.calls.map((call) => call.command)).toEqual(['UpdateCommand']);
  });

  it('gives up with an error naming the cause when every conditional update is refused', async () => {
    const email = `${randomUUID()}@example.test`;
    const refused = refuseUpdates(email, 'ConditionalCheckFailedException', 'The conditional request failed');
    try {
      const error = await recordLoginFailure(db, email, { windowSeconds: 60 }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toBe('Could not record a failed login: the window kept changing.');
      expect(error?.cause).toMatchObject({ name: 'ConditionalCheckFailedException' });
      expect(refused.count()).toBe(4);
    } finally {
      refused.remove();
    }
  });
});
