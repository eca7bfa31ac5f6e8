import { randomUUID } from 'node:crypto';
import type { Database } from '../../lib/db/client';

/** An error as DynamoDB answers when it throttles a request (retryable: the service answers 503). */
export const throttling = () =>
  Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
    name: 'ThrottlingException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });

/**
 * Fault injection through a middleware on the real client (issue 9): `fault` sees each command by its
 * operation name (`BatchWriteItemCommand`, ...) and its input, and returns an error to answer with
 * instead of sending it, or undefined to send it. The middleware sits before the client's own retries,
 * so an injected fault reaches the caller as one that outlasted them. Returns the function that removes it.
 */
export const injectFaults = (
  database: Database,
  fault: (operation: string, input: Record<string, any>) => Error | undefined,
): (() => void) => {
  const name = `fault-${randomUUID()}`;
  database.client.middlewareStack.add(
    (next, context) => async (args) => {
      const error = fault(String(context.commandName), args.input as Record<string, any>);
      if (error) throw error;
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => {
    database.client.middlewareStack.remove(name);
  };
};
