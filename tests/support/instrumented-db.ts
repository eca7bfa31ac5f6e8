import type { Database } from '../../lib/db/client';

export interface Call {
  command: string;
  start: number;
  end: number;
}

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
): { db: Database; calls: Call[]; rounds: () => number; reset: () => void } => {
  const calls: Call[] = [];
  const client = new Proxy(db.client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: SentCommand) => {
        const name = command.constructor.name;
        const nth = calls.filter((call) => call.command === name).length;
        const call = { command: name, start: performance.now(), end: Number.POSITIVE_INFINITY };
        calls.push(call);
        try {
          const plan = intercept?.(command, nth);
          if (plan && 'answer' in plan) return plan.answer;
          const result = await target.send((plan?.send ?? command) as never);
          return plan?.patchResult ? plan.patchResult(result) : result;
        } finally {
          call.end = performance.now();
        }
      };
    },
  });
  const rounds = () => {
    const sorted = [...calls].sort((a, b) => a.start - b.start);
    let count = 0;
    let end = Number.NEGATIVE_INFINITY;
    for (const call of sorted) {
      if (call.start >= end) count++;
      end = Math.max(end, call.end);
    }
    return count;
  };
  return { db: { client, tableName: db.tableName }, calls, rounds, reset: () => calls.splice(0) };
};
