import type { Database } from '../../lib/db/client';

export interface Call {
  command: string;
  start: number;
  end: number;
}

/**
 * The real client, with every `send` recorded: which command, when it started and ended. Requests
 * that overlap in time were in flight together, so merging overlaps gives the sequential round trips.
 */
export const instrument = (
  db: Database,
): { db: Database; calls: Call[]; rounds: () => number; reset: () => void } => {
  const calls: Call[] = [];
  const client = new Proxy(db.client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: { constructor: { name: string } }) => {
        const call = {
          command: command.constructor.name,
          start: performance.now(),
          end: Number.POSITIVE_INFINITY,
        };
        calls.push(call);
        try {
          return await target.send(command as never);
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
