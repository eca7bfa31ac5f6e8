import { roundsOf } from '../../bench/capacity-proxy';
import type { Database } from '../../lib/db/client';

export interface Call {
  command: string;
  start: number;
  end: number;
  /** Capacity units DynamoDB reports for the call (`ReturnConsumedCapacity: TOTAL`). */
  units: number;
  /** The command's input as sent. */
  input: Record<string, any>;
}

const READS = new Set(['GetCommand', 'BatchGetCommand', 'QueryCommand', 'ScanCommand']);

/** A command as the document client receives it: its class name and input. */
export interface SentCommand {
  constructor: { name: string };
  input: Record<string, any>;
}

/**
 * Fault injection: called before each send with the command and the number of earlier sends of the
 * same command class. It may throw (the database failed), return a replacement command to send and a
 * patch of its result (e.g. fewer items, reported back as unprocessed), or an answer to give without
 * sending; `undefined` sends the command as is.
 */
export type Interceptor = (
  command: SentCommand,
  nth: number,
) => { send?: SentCommand; patchResult?: (result: any) => any; answer?: unknown } | undefined;

/**
 * The real client, with every `send` recorded: which command, when it started and ended. Requests
 * that overlap in time were in flight together, so merging overlaps gives the sequential round trips.
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
  const client = new Proxy(db.client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: SentCommand) => {
        const name = command.constructor.name;
        const nth = calls.filter((call) => call.command === name).length;
        const call = {
          command: name,
          start: performance.now(),
          end: Number.POSITIVE_INFINITY,
          units: 0,
          input: command.input,
        };
        calls.push(call);
        try {
          const plan = intercept?.(command, nth);
          if (plan && 'answer' in plan) return plan.answer;
          const sent = plan?.send ?? command;
          sent.input.ReturnConsumedCapacity = 'TOTAL';
          const result: any = await target.send(sent as never);
          call.units = [result?.ConsumedCapacity ?? []]
            .flat()
            .reduce((sum: number, c: { CapacityUnits?: number }) => sum + (c.CapacityUnits ?? 0), 0);
          return plan?.patchResult ? plan.patchResult(result) : result;
        } finally {
          call.end = performance.now();
        }
      };
    },
  });
  const rounds = () => roundsOf(calls);
  /**
   * Read and write units of the calls so far. A conditional write that DynamoDB refuses is charged on
   * AWS but reports nothing here; the budgets tested with this are of requests whose writes succeed.
   */
  const capacity = () => {
    const sum = { read: 0, write: 0 };
    for (const call of calls) {
      if (READS.has(call.command)) sum.read += call.units;
      else sum.write += call.units;
    }
    return sum;
  };
  return { db: { client, tableName: db.tableName }, calls, rounds, capacity, reset: () => calls.splice(0) };
};
