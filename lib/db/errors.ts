import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { isRetryableByTrait, isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { AppError } from '../errors';

/** True when a conditional write was refused; repositories turn this into a domain error. */
export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/**
 * A conditional write whose refusal is an answer, not a failure (the state it was conditioned on has
 * moved on): true when it was written, false when its condition did not hold.
 */
export const writtenUnlessConditionFails = async (write: Promise<unknown>): Promise<boolean> => {
  try {
    await write;
    return true;
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    return false;
  }
};

/** The per-item reasons of a cancelled transaction, e.g. `['None', 'ConditionalCheckFailed']`. */
export const cancellationReasons = (error: unknown): string[] | undefined => {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  // Stryker disable next-line ArrayDeclaration: DynamoDB's cancelled transaction always names its reasons
  return (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
};

/**
 * Whether a DynamoDB failure means "try again shortly" rather than "this request is wrong": what the
 * SDK's own retry strategy retries (throttling, transient network and timeout errors, 5xx answers,
 * errors modelled as retryable), plus a write that met an ongoing transaction on its item, which
 * DynamoDB's documentation says to retry. It reaches the service only after the SDK's retries ran out.
 */
export const isTransientDbFailure = (error: unknown): boolean => {
  if (typeof error !== 'object' || error === null) return false;
  const failure = error as Parameters<typeof isTransientError>[0];
  return (
    isRetryableByTrait(failure) ||
    isThrottlingError(failure) ||
    isTransientError(failure) ||
    isServerError(failure) ||
    failure.name === 'TransactionConflictException'
  );
};

/**
 * A conditional write lost to a concurrent change of what it was conditioned on: the caller reads
 * again and decides again. `on` names the item that changed: the key itself, or the tenant's slot list.
 */
export class WriteConflict extends Error {
  override name = 'WriteConflict';
  constructor(
    readonly on:
      | 'key'
      | 'slots'
      | 'user'
      | 'webhook count'
      | 'kpi'
      | 'kpi count'
      | 'integration'
      | 'integration count',
    options?: { cause?: unknown },
  ) {
    super(`A concurrent change of the ${on === 'slots' ? 'slot list' : on} won.`, options);
  }
}

/**
 * A stored item that does not match its entity's declaration (lib/db/entity.ts): a bug or a damaged
 * item, never the caller's fault. Its message names the entity, the item's id and what does not match
 * (never a value: an item may hold a hash or a sealed secret); the service answers 500 and logs it.
 */
export class MalformedItem extends Error {
  override name = 'MalformedItem';
  constructor(
    readonly entity: string,
    item: Record<string, unknown>,
    issues: readonly { path: readonly PropertyKey[]; message: string }[],
    cause?: unknown,
  ) {
    const id = typeof item.id === 'string' ? ` ${item.id}` : '';
    const what = issues.map((issue) => `${issue.path.map(String).join('.') || '(item)'}: ${issue.message}`);
    super(`Stored ${entity} item${id} is malformed: ${what.join('; ')}`, { cause });
  }
}

/**
 * Writes that count a tenant's items (webhook endpoints, pull integrations) meet each other on the
 * tenant's count item when several run at once: each is tried again, after a short random wait, as the
 * key use cases do, and after MAX_WRITE_ATTEMPTS the caller is told to retry (503), as they are.
 */
const MAX_WRITE_ATTEMPTS = 25;
export const retryingConflicts = async <T>(subject: string, write: () => Promise<T>): Promise<T> => {
  for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      // Stryker disable next-line ArithmeticOperator,MethodExpression: a backoff constant; only the wait between tries changes
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * 2 ** attempt)));
    }
  }
  throw new AppError('SERVICE_UNAVAILABLE', `Too many concurrent ${subject} changes; retry.`, {
    headers: { 'Retry-After': '1' },
  });
};
