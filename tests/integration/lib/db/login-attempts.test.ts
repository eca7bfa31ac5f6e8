import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys } from '../../../../lib/db/keys';
import {
  clearAttempts,
  delayAttempts,
  readAttemptCounters,
  releaseAttempt,
  reserveAttempt,
} from '../../../../lib/db/login-attempts';
import { injectFaults } from '../../../support/faults';
import { db } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

const counterKey = () => keys.loginAttemptsOfEmail(`${randomUUID()}@example.test`);
const read = async (key: ReturnType<typeof counterKey>, windowSeconds = 60, now = Date.now()) =>
  (await readAttemptCounters(db, [key], { windowSeconds, now }))[0];

/** Answers every UpdateItem of this key with an error named `name`; counts them. */
const refuseUpdates = (pk: string, name: string, message: string) => {
  let count = 0;
  const remove = injectFaults(db, (operation, input) => {
    if (operation !== 'UpdateItemCommand' || input.Key?.pk !== pk) return undefined;
    count++;
    return Object.assign(new Error(message), { name });
  });
  return { count: () => count, remove };
};

describe('login attempt counters (lib/db/login-attempts.ts)', () => {
  it('counts attempts in one window that opens at the first, with its TTL at the window’s end', async () => {
    const key = counterKey();
    const now = Date.now();
    const first = await reserveAttempt(db, key, { windowSeconds: 60, now });
    expect(first).toEqual({
      reserved: true,
      counter: { count: 1, windowStart: now, windowEndsAt: now + 60_000, retryAt: 0 },
    });
    const second = await reserveAttempt(db, key, { windowSeconds: 60, now: now + 1, windowOpen: true });
    expect(second.counter.count).toBe(2);
    expect(await read(key, 60, now + 2)).toEqual({
      count: 2,
      windowStart: now,
      windowEndsAt: now + 60_000,
      retryAt: 0,
    });
    const { Item } = await db.client.send(new GetCommand({ TableName: db.tableName, Key: key }));
    expect(Item?.ttl).toBe(Math.ceil((now + 60_000) / 1000));
    // The window has passed: nothing to read (DynamoDB Local keeps the item), and the next one restarts.
    expect(await read(key, 60, now + 60_000)).toBeUndefined();
    const restarted = await reserveAttempt(db, key, {
      windowSeconds: 60,
      now: now + 60_000,
      windowOpen: true,
    });
    expect(restarted.counter).toMatchObject({ count: 1, windowStart: now + 60_000 });
  });

  it('refuses once the limit is reached, or while a delay runs, and says how the counter stands', async () => {
    const key = counterKey();
    const now = Date.now();
    for (let i = 0; i < 3; i++) {
      expect((await reserveAttempt(db, key, { windowSeconds: 60, now, limit: 3 })).reserved).toBe(true);
    }
    expect(await reserveAttempt(db, key, { windowSeconds: 60, now, limit: 3 })).toEqual({
      reserved: false,
      counter: { count: 3, windowStart: now, windowEndsAt: now + 60_000, retryAt: 0 },
    });
    const counter = (await read(key, 60, now)) as NonNullable<Awaited<ReturnType<typeof read>>>;
    await delayAttempts(db, key, counter, now + 5000);
    const delayed = await reserveAttempt(db, key, { windowSeconds: 60, now: now + 4999, limit: 10 });
    expect(delayed).toMatchObject({ reserved: false, counter: { count: 3, retryAt: now + 5000 } });
    expect((await reserveAttempt(db, key, { windowSeconds: 60, now: now + 5000, limit: 10 })).reserved).toBe(
      true,
    );
    // An earlier delay never shortens a later one set by a parallel failure.
    await delayAttempts(db, key, counter, now + 1000);
    expect((await read(key, 60, now))?.retryAt).toBe(now + 5000);
  });

  it('of 25 concurrent reservations against a limit of 7, exactly 7 pass, also when they race to open the window', async () => {
    const key = counterKey();
    const results = await Promise.all(
      Array.from({ length: 25 }, () => reserveAttempt(db, key, { windowSeconds: 60, limit: 7 })),
    );
    expect(results.filter((r) => r.reserved)).toHaveLength(7);
    expect((await read(key))?.count).toBe(7);

    // An expired window (DynamoDB Local keeps such items): one restart wins, the rest are added to it.
    await db.client.send(
      new PutCommand({
        TableName: db.tableName,
        Item: { ...key, count: 99, windowStart: Date.now() - 61_000, retryAt: Date.now() + 999_999, ttl: 1 },
      }),
    );
    const counts = await Promise.all(
      Array.from({ length: 20 }, () =>
        reserveAttempt(db, key, { windowSeconds: 60, windowOpen: true }).then((r) => r.counter.count),
      ),
    );
    expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // The restart forgot the old window's delay.
    expect((await read(key))?.retryAt).toBe(0);
  });

  it('with a delay, the reservation past the free count sets retryAt in the same write; of parallel ones, one', async () => {
    const key = counterKey();
    const now = Date.now();
    const delay = { free: 2, after: (count: number) => 1000 * count };
    const reserve = (seen: number, at = now) =>
      reserveAttempt(db, key, { windowSeconds: 60, now: at, limit: 10, windowOpen: seen > 0, seen, delay });
    // Free counts set nothing, also when they race.
    const free = await Promise.all([reserve(0), reserve(0)]);
    expect(free.map((r) => r.reserved)).toEqual([true, true]);
    expect((await read(key, 60, now))?.retryAt).toBe(0);
    // 12 parallel reservations that all read the count 2 (the last one free): exactly one passes, and
    // it stored the delay of the count it reached (3 s for the third) with its count.
    const probe = instrument(db);
    const raced = await Promise.all(
      Array.from({ length: 12 }, () =>
        reserveAttempt(probe.db, key, {
          windowSeconds: 60,
          now,
          limit: 10,
          windowOpen: true,
          seen: 2,
          delay,
        }),
      ),
    );
    const passed = raced.filter((r) => r.reserved);
    expect(passed).toHaveLength(1);
    expect(passed[0]?.counter).toMatchObject({ count: 3, retryAt: now + 3000 });
    for (const refused of raced.filter((r) => !r.reserved)) {
      expect(refused.counter).toMatchObject({ count: 3, retryAt: now + 3000 });
    }
    // One write per try: no separate write of the delay.
    expect(probe.calls.every((call) => call.command === 'UpdateItemCommand')).toBe(true);
    expect(await read(key, 60, now)).toMatchObject({ count: 3, retryAt: now + 3000 });
    // A reservation that read an older count catches up with the count as it stands, once the delay is over.
    const later = await reserve(1, now + 3000);
    expect(later).toMatchObject({ reserved: true, counter: { count: 4, retryAt: now + 3000 + 4000 } });
    // A window that opens past the free count sets its delay at once.
    const strict = counterKey();
    const opened = await reserveAttempt(db, strict, {
      windowSeconds: 60,
      now,
      delay: { free: 0, after: () => 500 },
    });
    expect(opened).toMatchObject({ reserved: true, counter: { count: 1, retryAt: now + 500 } });
  });

  it('a release gives one attempt back to the window it was counted in, never below zero, never to a later one', async () => {
    const key = counterKey();
    const now = Date.now();
    const { counter } = await reserveAttempt(db, key, { windowSeconds: 60, now });
    await reserveAttempt(db, key, { windowSeconds: 60, now, windowOpen: true });
    await releaseAttempt(db, key, counter);
    expect((await read(key, 60, now))?.count).toBe(1);
    await releaseAttempt(db, key, counter);
    await releaseAttempt(db, key, counter);
    expect((await read(key, 60, now))?.count).toBe(0);
    // A new window: the release of an attempt of the old one changes nothing.
    const later = now + 60_000;
    await reserveAttempt(db, key, { windowSeconds: 60, now: later, windowOpen: true });
    await releaseAttempt(db, key, counter);
    expect((await read(key, 60, later))?.count).toBe(1);
    await clearAttempts(db, key);
    expect(await read(key, 60, later)).toBeUndefined();
  });

  it('reads several counters in one strongly consistent call, in the order asked', async () => {
    const [a, b, c] = [counterKey(), counterKey(), counterKey()];
    await reserveAttempt(db, b, { windowSeconds: 60 });
    const probe = instrument(db);
    const counters = await readAttemptCounters(probe.db, [a, b, c], { windowSeconds: 60 });
    expect(counters.map((counter) => counter?.count)).toEqual([undefined, 1, undefined]);
    expect(probe.calls.map((call) => call.command)).toEqual(['BatchGetItemCommand']);
    expect(probe.calls[0]?.input.RequestItems[db.tableName].ConsistentRead).toBe(true);
  });

  it('without word of an open window, tries the update that opens one first: one write for a first attempt', async () => {
    const probe = instrument(db);
    await reserveAttempt(probe.db, counterKey(), { windowSeconds: 60 });
    expect(probe.calls.map((call) => call.command)).toEqual(['UpdateItemCommand']);
  });

  it('passes on a refusal that is not a condition at once, without trying the other update', async () => {
    const key = counterKey();
    const refused = refuseUpdates(key.pk, 'ResourceNotFoundException', 'Requested resource not found');
    try {
      await expect(reserveAttempt(db, key, { windowSeconds: 60 })).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
      });
      await expect(
        releaseAttempt(db, key, { count: 1, windowStart: 1, windowEndsAt: 2, retryAt: 0 }),
      ).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
      });
      await expect(
        delayAttempts(db, key, { count: 1, windowStart: 1, windowEndsAt: 2, retryAt: 0 }, 5),
      ).rejects.toMatchObject({
        name: 'ResourceNotFoundException',
      });
      expect(refused.count()).toBe(3);
    } finally {
      refused.remove();
    }
  });

  it('gives up with an error naming the cause when every conditional update is refused', async () => {
    const key = counterKey();
    const refused = refuseUpdates(
      key.pk,
      'ConditionalCheckFailedException',
      'The conditional request failed',
    );
    try {
      const error = await reserveAttempt(db, key, { windowSeconds: 60 }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toBe('Could not count a login attempt: the window kept changing.');
      expect(error?.cause).toMatchObject({ name: 'ConditionalCheckFailedException' });
      expect(refused.count()).toBe(4);
    } finally {
      refused.remove();
    }
  });
});
