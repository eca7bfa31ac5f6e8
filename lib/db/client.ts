import {
  type CredentialsProvider,
  createDynamoDbClient,
  type DynamoDbClient,
  type Middleware,
} from './dynamo';

/** What every repository function receives: the client and the one table of the service. */
export interface Database {
  readonly client: DynamoDbClient;
  readonly tableName: string;
}

export interface DatabaseOptions {
  tableName: string;
  region: string;
  endpoint?: string | undefined;
  /** Default: the environment (what Lambda provides). Ignored for a DynamoDB Local `endpoint`. */
  credentials?: CredentialsProvider | undefined;
  maxAttempts?: number | undefined;
  requestTimeoutMs?: number | undefined;
  /** Wraps every HTTP attempt: request counting, fault injection (tests, benchmark). */
  middleware?: Middleware | Middleware[] | undefined;
}

const LOCAL_REQUEST_TIMEOUT_MS = 30_000;

export const createDatabase = ({
  tableName,
  region,
  endpoint,
  credentials,
  maxAttempts = 3,
  requestTimeoutMs,
  middleware,
}: DatabaseOptions): Database => {
  const client = createDynamoDbClient({
    region,
    endpoint,
    // DynamoDB Local accepts any alphanumeric credentials; never send real ones to it.
    credentials: endpoint ? { accessKeyId: 'local', secretAccessKey: 'local' } : credentials,
    maxAttempts,
    // On AWS 5 s per attempt cuts a hung connection within a 10 s Lambda. DynamoDB Local on a loaded
    // machine is slow, not hung, and a retried timeout could count an ADD twice (README, "DynamoDB
    // calls"): it gets 30 s, as the local stage's Lambdas get 60 s (serverless.yml).
    requestTimeoutMs: requestTimeoutMs ?? (endpoint ? LOCAL_REQUEST_TIMEOUT_MS : undefined),
    middleware,
  });
  return { client, tableName };
};
