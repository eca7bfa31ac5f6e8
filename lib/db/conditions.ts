import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/** True when a conditional write was refused; repositories turn this into a domain error. */
export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException ||
  (error instanceof Error && error.name === 'ConditionalCheckFailedException');

/** The per-item reasons of a cancelled transaction, e.g. `['None', 'ConditionalCheckFailed']`. */
export const cancellationReasons = (error: unknown): string[] | undefined =>
  error instanceof TransactionCanceledException ||
  (error instanceof Error && error.name === 'TransactionCanceledException')
    ? ((error as TransactionCanceledException).CancellationReasons ?? []).map(
        (reason) => reason.Code ?? 'None',
      )
    : undefined;
