/**
 * Errors of the DynamoDB client. Callers switch on `name` (the service's exception name, as the AWS
 * SDK's exception classes do) and, for network failures, on Node's `code` (ECONNRESET, ...): see
 * lib/db/conditions.ts and `toAppError` in lib/http/middleware.ts.
 */

/** What the SDK puts on every output and service error (`$metadata`), so logs read the same. */
export interface ResponseMetadata {
  httpStatusCode?: number | undefined;
  /** `x-amzn-requestid`: quote it to AWS support. */
  requestId?: string | undefined;
  /** HTTP attempts made, retries included. */
  attempts: number;
  /** Milliseconds spent waiting between attempts. */
  totalRetryDelay: number;
}

/** A cancelled transaction's reason per item, in TransactItems order (`Code` is `None` for items that were fine). */
export interface CancellationReason {
  Code?: string;
  Message?: string;
  /** The item as stored, when the item asked for ReturnValuesOnConditionCheckFailure: ALL_OLD. */
  Item?: Record<string, unknown>;
}

/**
 * An error answer of DynamoDB: `name` is the exception name from the body's `__type`
 * (`com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` → `ConditionalCheckFailedException`).
 */
export class DynamoDbError extends Error {
  readonly $metadata: ResponseMetadata;
  readonly $fault: 'client' | 'server';
  /** TransactionCanceledException: one reason per item of the transaction, `Item`s unmarshalled. */
  declare readonly CancellationReasons?: CancellationReason[];
  /** ConditionalCheckFailedException with ReturnValuesOnConditionCheckFailure: ALL_OLD: the stored item. */
  declare readonly Item?: Record<string, unknown>;

  constructor(
    name: string,
    message: string,
    $metadata: ResponseMetadata,
    extra: { CancellationReasons?: CancellationReason[]; Item?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = name;
    this.$metadata = $metadata;
    this.$fault = ($metadata.httpStatusCode ?? 500) >= 500 ? 'server' : 'client';
    if (extra.CancellationReasons) this.CancellationReasons = extra.CancellationReasons;
    if (extra.Item) this.Item = extra.Item;
  }
}

/** One HTTP attempt took longer than `requestTimeoutMs`; named like the SDK's (`TimeoutError`). */
export class RequestTimeoutError extends Error {
  override name = 'TimeoutError';
}

/** The body did not match its `x-amz-crc32` header: it was damaged on the way, so the attempt is retried. */
export class Crc32MismatchError extends Error {
  override name = 'Crc32MismatchError';
}

/** No credentials could be found or the provider failed; never retried. */
export class CredentialsError extends Error {
  override name = 'CredentialsError';
}

/**
 * A value DynamoDB cannot store (a number out of its range or precision, NaN, an empty set, a class
 * instance, an item over 400 KB, nesting deeper than 32 levels). Thrown while marshalling, before
 * anything is sent, so a caller can convert a whole batch first and know no write will fail on data.
 */
export class UnstorableValueError extends Error {
  override name = 'UnstorableValueError';
  /** Where in the item: `actual`, `tags[2]`, `address.city`, or `(item)` for the item as a whole. */
  readonly path: string;

  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.path = path;
  }
}
