import type { InitializeHandlerOutput, InitializeMiddleware } from '@smithy/types';
import { capacityOf, RECORDER, type Call as RecordedCall, recordCalls, roundsOf } from '../../bench/capacity';
import { createDatabase, type Database } from '../../lib/db/client';

/** A recorded call; tests read its input in any shape. */
export type Call = RecordedCall<Record<string, any>>;

/**
 * Fault injection: called before each send with the command's SDK name (`BatchWriteItemCommand`) and
 * input, and the number of earlier sends of the same command. It may throw (the database failed),
 * wait (another request overtakes this one),
 * return an input to send instead and a patch of the result (e.g. fewer items, reported back as
 * unprocessed), or an answer to give without sending; `undefined` sends the command as it is.
 */
export type Interceptor = (
  command: { name: string; input: Record<string, any> },
  nth: number,
) => Plan | undefined | Promise<Plan | undefined>;

interface Plan {
  input?: Record<string, any>;
  patchResult?: (result: any) => any;
  answer?: unknown;
}

/**
 * A second client for the same table, with the benchmark's call recorder on its stack
 * (bench/capacity.ts) and, inside it, the test's interceptor: what a repository does through it is
 * counted and can be made to fail, and nothing else is.
 */
export const instrument = (
  db: Database,
  intercept?: Interceptor,
): {
  db: Database;
  calls: Call[];
  rounds: () => number;
  capacity: () => { read: number; write: number };
  reset: () => void;
} => {
  const calls: Call[] = [];
  const probe = createDatabase({
    tableName: db.tableName,
    region: 'eu-central-1',
    endpoint: process.env.DYNAMODB_ENDPOINT,
  });
  recordCalls(probe.client, calls);
  if (intercept) {
    const sent = new Map<string, number>();
    const interceptor: InitializeMiddleware<any, any> = (next, context) => async (args) => {
      const name = context.commandName as string;
      const nth = sent.get(name) ?? 0;
      sent.set(name, nth + 1);
      const plan = await intercept({ name, input: args.input }, nth);
      if (plan && 'answer' in plan) return { output: await plan.answer } as InitializeHandlerOutput<any>;
      const result = await next(
        plan?.input ? { ...args, input: { ...plan.input, ReturnConsumedCapacity: 'TOTAL' } } : args,
      );
      return plan?.patchResult ? { ...result, output: plan.patchResult(result.output) } : result;
    };
    probe.client.middlewareStack.addRelativeTo(interceptor, {
      name: 'intercept',
      relation: 'after',
      toMiddleware: RECORDER,
    });
  }
  return {
    db: probe,
    calls,
    rounds: () => roundsOf(calls),
    capacity: () => capacityOf(calls),
    reset: () => {
      calls.splice(0);
    },
  };
};

/**
 * The table through a client whose every Query returns at most `limit` items a page, as DynamoDB
 * does past 1 MB: a reader that follows LastEvaluatedKey reads what it reads with any page size.
 */
export const smallPages = (db: Database, limit = 1) =>
  instrument(db, (command) =>
    command.name === 'QueryCommand' ? { input: { ...command.input, Limit: limit } } : undefined,
  );

/**
 * A client that another writer overtakes: before each of the first `times` sends of `command`,
 * `act` changes the table, as a concurrent request that writes between a reader's read and its write
 * does.
 */
export const overtaken = (db: Database, command: string, act: (nth: number) => Promise<unknown>, times = 1) =>
  instrument(db, async ({ name }, nth) => {
    if (name === command && nth < times) await act(nth);
    return undefined;
  });
