import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { InitializeMiddleware } from '@smithy/types';
import type { Database } from '../../lib/db/client';

/** An error as DynamoDB answers when it throttles a request (retryable: the service answers 503). */
export const throttling = () =>
  Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
    name: 'ThrottlingException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });

/** DynamoDB's answer to a cancelled transaction: one reason code per item. */
export const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

let faults = 0;

/**
 * Fault injection through a middleware on the real client's stack: `fault` sees each command by its
 * SDK name (`BatchWriteItemCommand`, ...) and its input, and returns an error to answer with instead
 * of sending it, or undefined to send it. The middleware runs at the `initialize` step, before the
 * SDK's retry strategy, so an injected fault reaches the caller as one that outlasted the client's own
 * retries. Returns the function that removes it.
 */
export const injectFaults = (
  database: Database,
  fault: (operation: string, input: Record<string, any>) => Error | undefined,
): (() => void) => {
  const name = `fault-${++faults}`;
  const middleware: InitializeMiddleware<any, any> = (next, context) => async (args) => {
    const error = fault(context.commandName as string, args.input);
    if (error) throw error;
    return next(args);
  };
  database.client.middlewareStack.add(middleware, { step: 'initialize', name, priority: 'high' });
  return () => {
    database.client.middlewareStack.remove(name);
  };
};
