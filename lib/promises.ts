/**
 * Like `Promise.all`, but waits for every promise to settle before it rejects with the first failure.
 * For concurrent database writes answered as one request: a Lambda may be frozen right after it
 * answers, so no write may still be in flight then, or the outcome of the request is undetermined.
 */
export const settleAll = async <T extends readonly unknown[]>(
  values: {
    readonly [K in keyof T]: T[K] | Promise<T[K]>;
  },
): Promise<T> => {
  const settled = await Promise.allSettled(values as readonly unknown[]);
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
};
