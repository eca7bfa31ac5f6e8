import type { Database } from './client';
import { isConditionalCheckFailed } from './conditions';
import { DeleteCommand, GetCommand, UpdateCommand } from './dynamo';
import { keys } from './keys';

/**
 * Failed logins of one (normalized) e-mail in a fixed window that opens at the first failure.
 * Item: `LOGIN#<email>` / `FAILURES` with `count`, `windowStart` (epoch milliseconds, so windows of a
 * second or two are exact) and `ttl` (epoch seconds, the window's end). DynamoDB deletes expired items
 * only eventually (DynamoDB Local never), so every reader checks `windowStart` itself.
 */
export interface LoginFailures {
  /** Failed attempts in the current window. */
  count: number;
  /** Epoch milliseconds at which the window ends and the count stops mattering. */
  windowEndsAt: number;
}

export interface LoginFailureWindow {
  windowSeconds: number;
  /** Epoch milliseconds; injectable for tests. */
  now?: number;
}

const toFailures = (item: Record<string, unknown>, windowSeconds: number): LoginFailures => ({
  count: Number(item.count ?? 0),
  windowEndsAt: Number(item.windowStart) + windowSeconds * 1000,
});

/** The failures of the current window, or undefined when there are none or the window has passed. */
export const getLoginFailures = async (
  { client, tableName }: Database,
  email: string,
  { windowSeconds, now = Date.now() }: LoginFailureWindow,
): Promise<LoginFailures | undefined> => {
  // Strongly consistent: a failure recorded a moment ago by another container must count.
  // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: keys.loginFailures(email), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const failures = toFailures(Item, windowSeconds);
  return failures.windowEndsAt > now ? failures : undefined;
};

/**
 * Counts one failed login and returns the window's count afterwards. UpdateItem has no "if", so a
 * window is either continued or restarted by one of two conditional updates whose conditions are
 * complementary: `ADD count` only while the stored window is open; `SET count = 1, windowStart = now`
 * only when there is no item or its window has passed. Exactly one of them holds at any instant, so a
 * refused one is retried as the other. Both are single-item atomic writes, so concurrent failures
 * (from any number of containers) are all counted: `ADD` never loses an increment, and of several
 * concurrent restarts one wins and the others fall through to `ADD`. `windowOpen` (from the read the
 * caller already made) only picks which update to try first, to save a round trip.
 */
export const recordLoginFailure = async (
  { client, tableName }: Database,
  email: string,
  { windowSeconds, now = Date.now(), windowOpen = false }: LoginFailureWindow & { windowOpen?: boolean },
): Promise<LoginFailures> => {
  const windowMs = windowSeconds * 1000;
  const common = {
    TableName: tableName,
    Key: keys.loginFailures(email),
    ReturnValues: 'ALL_NEW' as const,
  };
  const continueWindow = () =>
    client.send(
      new UpdateCommand({
        ...common,
        UpdateExpression: 'ADD #count :one',
        ConditionExpression: '#windowStart > :cutoff',
        ExpressionAttributeNames: { '#count': 'count', '#windowStart': 'windowStart' },
        ExpressionAttributeValues: { ':one': 1, ':cutoff': now - windowMs },
      }),
    );
  const startWindow = () =>
    client.send(
      new UpdateCommand({
        ...common,
        UpdateExpression: 'SET #count = :one, #windowStart = :now, #ttl = :ttl, #type = :type',
        ConditionExpression: 'attribute_not_exists(#windowStart) OR #windowStart <= :cutoff',
        ExpressionAttributeNames: {
          '#count': 'count',
          '#windowStart': 'windowStart',
          '#ttl': 'ttl',
          '#type': 'type',
        },
        ExpressionAttributeValues: {
          ':one': 1,
          ':now': now,
          ':cutoff': now - windowMs,
          ':ttl': Math.ceil((now + windowMs) / 1000),
          ':type': 'LOGIN_FAILURES',
        },
      }),
    );
  // Each refusal means the other condition held at that moment; the state can only flip again if a
  // window is restarted and passes between two calls, so four tries are far more than enough.
  const attempts = windowOpen
    ? [continueWindow, startWindow, continueWindow, startWindow]
    : [startWindow, continueWindow, startWindow, continueWindow];
  let lastError: unknown;
  for (const attempt of attempts) {
    try {
      const { Attributes } = await attempt();
      return toFailures(Attributes ?? {}, windowSeconds);
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      lastError = error;
    }
  }
  throw new Error('Could not record a failed login: the window kept changing.', { cause: lastError });
};

/** A successful login forgets the failures of its e-mail. */
export const clearLoginFailures = async ({ client, tableName }: Database, email: string): Promise<void> => {
  await client.send(new DeleteCommand({ TableName: tableName, Key: keys.loginFailures(email) }));
};
