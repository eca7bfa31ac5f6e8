import type { DynamoDBDocumentClient, ServiceInputTypes, ServiceOutputTypes } from '@aws-sdk/lib-dynamodb';
import type { InitializeMiddleware } from '@smithy/types';

/** One DynamoDB call as the recorder saw it. */
export interface Call<Input = Record<string, unknown>> {
  /** The SDK's command name, e.g. `GetItemCommand` (a DocumentClient `GetCommand` sends one). */
  command: string;
  start: number;
  end: number;
  /** Capacity units DynamoDB reports for the call (`ReturnConsumedCapacity: TOTAL`). */
  units: number;
  /** The command's input as the caller gave it: native values for DocumentClient commands. */
  input: Input;
}

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand']);

/** Capacity units of an output: one `ConsumedCapacity`, or one per table of a batch or transaction. */
const unitsOf = (output: { ConsumedCapacity?: unknown } | undefined): number =>
  [output?.ConsumedCapacity ?? []]
    .flat()
    .reduce((sum: number, c) => sum + ((c as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);

export const RECORDER = 'recordCalls';

/**
 * Records every call of a client in `calls`, with a middleware on the client's own stack (the SDK's
 * extension point): the command, when it started and ended, and the capacity DynamoDB reports, which
 * it is asked for (`ReturnConsumedCapacity: TOTAL`; that changes nothing else of the call). It runs at
 * the `initialize` step, before the SDK's retries: one call is one `send`, its retries included.
 * Returns the function that removes it.
 */
export const recordCalls = <Input>(client: DynamoDBDocumentClient, calls: Call<Input>[]): (() => void) => {
  const record: InitializeMiddleware<ServiceInputTypes, ServiceOutputTypes> =
    (next, context) => async (args) => {
      const call: Call<Input> = {
        command: context.commandName as string,
        start: performance.now(),
        end: Number.POSITIVE_INFINITY,
        units: 0,
        input: args.input as Input,
      };
      calls.push(call);
      try {
        const result = await next({ ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } });
        call.units = unitsOf(result.output as { ConsumedCapacity?: unknown });
        return result;
      } finally {
        call.end = performance.now();
      }
    };
  client.middlewareStack.add(record, {
    step: 'initialize',
    name: RECORDER,
    priority: 'high',
  });
  return () => client.middlewareStack.remove(RECORDER);
};

/**
 * Read and write units of the calls. A conditional write that DynamoDB refuses is charged on AWS but
 * reports nothing here; the budgets measured with this are of requests whose writes succeed.
 */
export const capacityOf = (calls: readonly Pick<Call, 'command' | 'units'>[]) => {
  const sum = { read: 0, write: 0 };
  for (const call of calls) {
    if (READS.has(call.command)) sum.read += call.units;
    else sum.write += call.units;
  }
  return sum;
};

/**
 * The calls grouped into their round trips, in order: requests that overlap in time were in flight
 * together, so merging overlaps gives the sequential round trips (and the groups to replay).
 */
export const roundGroups = <T extends Pick<Call, 'start' | 'end'>>(calls: readonly T[]): T[][] => {
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  const groups: T[][] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const call of sorted) {
    if (call.start >= end) groups.push([]);
    groups[groups.length - 1]?.push(call);
    end = Math.max(end, call.end);
  }
  return groups;
};

export const roundsOf = (calls: readonly Pick<Call, 'start' | 'end'>[]): number => roundGroups(calls).length;
