import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TranslateConfig } from '@aws-sdk/lib-dynamodb';

/** What every repository function receives: the document client and the one table of the service. */
export interface Database {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** How long the table keeps an audit event (its `ttl`); DEFAULT_AUDIT_RETENTION_DAYS when unset. */
  readonly auditRetentionDays?: number | undefined;
}

export interface DatabaseOptions {
  tableName: string;
  region: string;
  /** Set only for DynamoDB Local; on AWS the SDK resolves the regional (FIPS, dual-stack) endpoint. */
  endpoint?: string | undefined;
  /** Per attempt; default 5 s on AWS, 30 s for DynamoDB Local. */
  requestTimeoutMs?: number | undefined;
  /** How long audit events are kept, in days (the stage's AUDIT_RETENTION_DAYS). */
  auditRetentionDays?: number | undefined;
}

/**
 * Attempts per call, the first included, with the SDK's standard retry strategy (exponential backoff
 * with jitter, a retry quota per client). Three attempts of at most 5 s fit a 10 s Lambda.
 */
export const MAX_ATTEMPTS = 3;
const AWS_REQUEST_TIMEOUT_MS = 5000;
/**
 * DynamoDB Local on a loaded machine is slow, not hung, and a retried timeout could count an `ADD`
 * twice: it gets 30 s per attempt, as the local stage's Lambdas get 60 s (serverless.yml).
 */
const LOCAL_REQUEST_TIMEOUT_MS = 30_000;

/**
 * How items are converted (`@aws-sdk/util-dynamodb`): an absent optional field is left out rather than
 * refused, and nothing is converted silently (no class instances, no imprecise numbers). The same
 * options serve the check before a multi-item write (lib/db/batch.ts), so that check refuses exactly
 * what a write would. Frozen, and copied for the DocumentClient, which adds its own defaults to the
 * object it is given.
 */
export const MARSHALL_OPTIONS: Readonly<NonNullable<TranslateConfig['marshallOptions']>> = Object.freeze({
  removeUndefinedValues: true,
});

/**
 * The service's DynamoDB client: the SDK's DocumentClient over a DynamoDBClient. Credentials, region
 * and endpoint come from the SDK's own chain (the Lambda role, SSO for the operator CLI); DynamoDB
 * Local gets fixed credentials, since it accepts any and must never see real ones. Tests and the
 * benchmark count calls and inject faults with middleware on this client's stack
 * (`client.middlewareStack.add`).
 */
export const createDatabase = ({
  tableName,
  region,
  endpoint,
  requestTimeoutMs,
  auditRetentionDays,
}: DatabaseOptions): Database => {
  const base = new DynamoDBClient({
    region,
    maxAttempts: MAX_ATTEMPTS,
    retryMode: 'standard',
    requestHandler: {
      requestTimeout: requestTimeoutMs ?? (endpoint ? LOCAL_REQUEST_TIMEOUT_MS : AWS_REQUEST_TIMEOUT_MS),
      // Without it the handler only logs a warning and waits on: a hung connection must fail the
      // attempt (as a retryable TimeoutError) within the Lambda's time.
      throwOnRequestTimeout: true,
    },
    // Stryker disable next-line StringLiteral: DynamoDB Local takes any credentials
    ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  return {
    client: DynamoDBDocumentClient.from(base, { marshallOptions: { ...MARSHALL_OPTIONS } }),
    tableName,
    auditRetentionDays,
  };
};
