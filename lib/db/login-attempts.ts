import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod/mini';
import { batchGet } from './batch';
import type { Database } from './client';
import { defineEntity } from './entity';
import { isConditionalCheckFailed, writtenUnlessConditionFails } from './errors';
import type { ItemKey } from './keys';

/**
 * Counters of login attempts, one item each (lib/db/keys.ts): per e-mail and source address, per
 * source address, per e-mail. Each counts in a fixed window that opens at its first attempt:
 * `count`, `windowStart` (epoch milliseconds, so windows of a second or two are exact), `retryAt`
 * (epoch milliseconds before which the counter refuses another attempt: the progressive delay) and
 * `ttl` (epoch seconds, the window's end). DynamoDB deletes expired items only eventually (DynamoDB
 * Local never), so every reader checks `windowStart` itself.
 *
 * An attempt is reserved before its password is verified, by a conditional write that fails once
 * the counter's limit is reached or while its delay runs: however many attempts run in parallel, at
 * most the limit are verified, and none while a delay that a parallel one set runs. A reservation
 * stays as a failure unless the caller releases it.
 */
export interface AttemptCounter {
  /** Attempts reserved in the current window (failures, and attempts still being verified). */
  count: number;
  /** Epoch milliseconds at which the window ends and the count stops mattering. */
  windowEndsAt: number;
  /** Epoch milliseconds before which the counter takes no attempt (0: none). */
  retryAt: number;
  /** The window's start, as stored: a release names the window it gives an attempt back to. */
  windowStart: number;
}

export interface AttemptWindow {
  windowSeconds: number;
  /** Epoch milliseconds; injectable for tests. */
  now?: number;
}

/**
 * A counter item as stored, of any of the three kinds (its key is the caller's). The per-e-mail counter
 * of 0.1 and 0.2 counted failures only, as `LOGIN_FAILURES`, with the same attributes and no delay.
 */
export const attemptCounters = /* @__PURE__ */ defineEntity(() => ({
  type: 'LOGIN_ATTEMPTS',
  formerTypes: ['LOGIN_FAILURES'],
  schema: z.object({
    pk: z.string(),
    sk: z.string(),
    count: z.int(),
    windowStart: z.int(),
    retryAt: z.int(),
    /** Epoch seconds: the window's end, when DynamoDB may delete the item. */
    ttl: z.int(),
  }),
  key: ({ pk, sk }) => ({ pk, sk }),
  stored: {
    pk: { write: () => ({}) },
    sk: { write: () => ({}) },
    count: { default: 0 },
    retryAt: { default: 0 },
  },
}));

const toCounter = (item: Record<string, unknown>, windowSeconds: number): AttemptCounter => {
  const { count, windowStart, retryAt } = attemptCounters.fromItem(item);
  return { count, windowEndsAt: windowStart + windowSeconds * 1000, retryAt, windowStart };
};

const current = (item: Record<string, unknown> | undefined, windowSeconds: number, now: number) => {
  if (!item) return undefined;
  const counter = toCounter(item, windowSeconds);
  return counter.windowEndsAt > now ? counter : undefined;
};

/**
 * The counters of the current windows, in the order of `keys`; undefined where there is none or its
 * window has passed. One strongly consistent BatchGetItem: an attempt counted a moment ago by another
 * container must count. `windowSeconds` is every counter's window, or one per key.
 */
export const readAttemptCounters = async (
  db: Database,
  keys: ItemKey[],
  {
    windowSeconds,
    now = Date.now(),
  }: Omit<AttemptWindow, 'windowSeconds'> & {
    windowSeconds: number | readonly number[];
  },
): Promise<(AttemptCounter | undefined)[]> => {
  const items = await batchGet(db, keys);
  return keys.map((key, index) =>
    current(
      items.find((item) => item.pk === key.pk && item.sk === key.sk),
      typeof windowSeconds === 'number' ? windowSeconds : (windowSeconds[index] as number),
      now,
    ),
  );
};

export type Reservation =
  | { reserved: true; counter: AttemptCounter }
  /** Refused by the limit or the delay: the counter as it stood. */
  | { reserved: false; counter: AttemptCounter };

/**
 * The progressive delay a reservation sets: the one that takes the count past `free` makes the
 * counter refuse attempts for `after(count)` milliseconds from the reservation on.
 */
export interface ReservationDelay {
  free: number;
  after: (count: number) => number;
}

/**
 * Reserves one attempt on a counter: the window's count goes up by one unless it has reached `limit`
 * or `retryAt` is still ahead. UpdateItem has no "if", so the window is either continued or restarted
 * by one of two conditional updates whose window conditions are complementary: `ADD count` only while
 * the stored window is open (and below the limit, and past `retryAt`); `SET count = 1, windowStart =
 * now` only when there is no item or its window has passed. A refused update returns the item as it
 * stood (ReturnValuesOnConditionCheckFailure), which says whether the window was what failed (then the
 * other update is tried) or the limit or the delay (then the attempt is refused). Both are single-item
 * atomic writes, so concurrent attempts from any number of containers are all counted and never pass
 * the limit; of several concurrent restarts one wins and the others fall through to `ADD`.
 *
 * With a `delay`, the reservation that takes the count past `delay.free` sets `retryAt` in the same
 * write, so parallel attempts cannot slip through before a failure's delay is stored. The delay
 * depends on the count reached, so that write is conditioned on the count it was computed from
 * (`seen`, from the caller's read): of parallel attempts one takes it and the others find the delay
 * running. Below `free`, any count under it will do, so parallel free attempts pass together.
 */
export const reserveAttempt = async (
  { client, tableName }: Database,
  key: ItemKey,
  {
    windowSeconds,
    now = Date.now(),
    limit,
    windowOpen = false,
    seen = 0,
    delay,
  }: AttemptWindow & {
    limit?: number | undefined;
    windowOpen?: boolean;
    /** The count the caller read: the count a delayed reservation expects. */
    seen?: number;
    delay?: ReservationDelay | undefined;
  },
): Promise<Reservation> => {
  const windowMs = windowSeconds * 1000;
  const common = {
    TableName: tableName,
    Key: key,
    ReturnValues: 'ALL_NEW' as const,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  /** The `retryAt` the reservation that reaches `count` sets, if that count is past the free ones. */
  const retryAtOf = (count: number) =>
    delay !== undefined && count > delay.free ? now + delay.after(count) : undefined;
  let expected = seen;
  const continueWindow = () => {
    const retryAt = retryAtOf(expected + 1);
    const delayed =
      delay === undefined ? [] : retryAt === undefined ? ['#count < :free'] : ['#count = :seen'];
    return client.send(
      new UpdateCommand({
        ...common,
        UpdateExpression:
          retryAt === undefined ? 'ADD #count :one' : 'ADD #count :one SET #retryAt = :retryAt',
        ConditionExpression: [
          '#windowStart > :cutoff',
          'attribute_not_exists(#retryAt) OR #retryAt <= :now',
          ...(limit === undefined ? [] : ['#count < :limit']),
          ...delayed,
        ]
          .map((condition) => `(${condition})`)
          .join(' AND '),
        ExpressionAttributeNames: { '#count': 'count', '#windowStart': 'windowStart', '#retryAt': 'retryAt' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':cutoff': now - windowMs,
          ':now': now,
          ...(limit === undefined ? {} : { ':limit': limit }),
          ...(retryAt === undefined ? {} : { ':retryAt': retryAt, ':seen': expected }),
          ...(delay !== undefined && retryAt === undefined ? { ':free': delay.free } : {}),
        },
      }),
    );
  };
  const startWindow = () => {
    const retryAt = retryAtOf(1);
    return client.send(
      new UpdateCommand({
        ...common,
        UpdateExpression: `SET #count = :one, #windowStart = :now, #ttl = :ttl, #type = :type${
          retryAt === undefined ? ' REMOVE #retryAt' : ', #retryAt = :retryAt'
        }`,
        ConditionExpression: 'attribute_not_exists(#windowStart) OR #windowStart <= :cutoff',
        ExpressionAttributeNames: {
          '#count': 'count',
          '#windowStart': 'windowStart',
          '#ttl': 'ttl',
          '#type': 'type',
          '#retryAt': 'retryAt',
        },
        ExpressionAttributeValues: {
          ':one': 1,
          ':now': now,
          ':cutoff': now - windowMs,
          ':ttl': Math.ceil((now + windowMs) / 1000),
          ':type': 'LOGIN_ATTEMPTS',
          ...(retryAt === undefined ? {} : { ':retryAt': retryAt }),
        },
      }),
    );
  };
  // The window can only flip between two calls if it is restarted and passes in between; with a
  // delay, a parallel attempt can also move the count once (from a free count past the free ones),
  // after which the delay it set refuses. Four tries are far more than enough. `windowOpen` (from the
  // read the caller already made) only picks which update to try first, to save a round trip.
  let lastError: unknown;
  let update = windowOpen ? continueWindow : startWindow;
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      const { Attributes } = await update();
      return { reserved: true, counter: toCounter(Attributes ?? {}, windowSeconds) };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      lastError = error;
      const raw = error instanceof ConditionalCheckFailedException ? error.Item : undefined;
      const open = current(raw ? unmarshall(raw) : undefined, windowSeconds, now);
      // The continuation failed with the window open: the limit or the delay refused it, unless only
      // the count it expected had moved (a parallel attempt), which the next try starts from.
      const refused = open && (open.count >= (limit ?? Number.POSITIVE_INFINITY) || open.retryAt > now);
      if (update === continueWindow && open && (refused || delay === undefined)) {
        return { reserved: false, counter: open };
      }
      expected = open?.count ?? 0;
      update = open ? continueWindow : startWindow;
    }
  }
  throw new Error('Could not count a login attempt: the window kept changing.', { cause: lastError });
};

/**
 * Gives a reserved attempt back (a login that proved its password): the count goes down by one, in
 * the window the attempt was counted in. A window that has passed or restarted since keeps its count.
 */
export const releaseAttempt = async (
  { client, tableName }: Database,
  key: ItemKey,
  counter: AttemptCounter,
): Promise<void> => {
  await writtenUnlessConditionFails(
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'ADD #count :minusOne',
        ConditionExpression: '#windowStart = :windowStart AND #count > :zero',
        ExpressionAttributeNames: { '#count': 'count', '#windowStart': 'windowStart' },
        ExpressionAttributeValues: { ':minusOne': -1, ':windowStart': counter.windowStart, ':zero': 0 },
      }),
    ),
  );
};

/**
 * Makes the counter refuse attempts until `retryAt` (the progressive delay after a failure), in the
 * window the failure was counted in; a later `retryAt` already set by a parallel failure stays.
 */
export const delayAttempts = async (
  { client, tableName }: Database,
  key: ItemKey,
  counter: AttemptCounter,
  retryAt: number,
): Promise<void> => {
  await writtenUnlessConditionFails(
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET #retryAt = :retryAt',
        ConditionExpression:
          '#windowStart = :windowStart AND (attribute_not_exists(#retryAt) OR #retryAt < :retryAt)',
        ExpressionAttributeNames: { '#retryAt': 'retryAt', '#windowStart': 'windowStart' },
        ExpressionAttributeValues: { ':retryAt': retryAt, ':windowStart': counter.windowStart },
      }),
    ),
  );
};

/** Forgets a counter: a source that proved the password starts again from nothing for that e-mail. */
export const clearAttempts = async ({ client, tableName }: Database, key: ItemKey): Promise<void> => {
  await client.send(new DeleteCommand({ TableName: tableName, Key: key }));
};
