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
  Object.assign(new Error('Transaction cancelled, please refer cancellation reasons for specific reasons'), {
    name: 'TransactionCanceledException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

/**
 * Fault injection through a middleware on the real client (issue 9): `fault` sees each command by its
 * SDK name (`BatchWriteItemCommand`, ...) and its input, and returns an error to answer with instead of
 * sending it, or undefined to send it. It is asked once per command and its answer holds for every
 * attempt of that command, so an injected fault reaches the caller as one that outlasted the client's
 * own retries. Returns the function that removes it.
 */
export const injectFaults = (
  database: Database,
  fault: (operation: string, input: Record<string, any>) => Error | undefined,
): (() => void) => {
  const decided = new WeakMap<object, Error | undefined>();
  return database.client.use((next) => async (request) => {
    if (!decided.has(request.command)) {
      decided.set(
        request.command,
        fault(`${request.operation}Command`, request.command.input as Record<string, any>),
      );
    }
    const error = decided.get(request.command);
    if (error) throw error;
    return next(request);
  });
};
