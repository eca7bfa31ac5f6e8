import type { CancellationReason } from './dynamo';

/** True when a conditional write was refused; repositories turn this into a domain error. */
export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** The per-item reasons of a cancelled transaction, e.g. `['None', 'ConditionalCheckFailed']`. */
export const cancellationReasons = (error: unknown): string[] | undefined =>
  error instanceof Error && error.name === 'TransactionCanceledException'
    ? ((error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? []).map(
        (reason) => reason.Code ?? 'None',
      )
    : undefined;
