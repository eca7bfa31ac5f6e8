/**
 * What a function needs of its deployment, declared beside its route in its module of functions/
 * (`export const deployment = defineDeployment({...})`): `npm run functions` turns the declarations
 * into serverless.yml's functions (infra/functions.json: events, role, reserved concurrency, memory,
 * time-out), and a test fails while that file is stale (docs/architecture.md, "Route modules").
 *
 * An HTTP function's event comes from its `route` (method, path, auth): a JWT route also reads the
 * caller's session, user and tenant and the JWT key (the endpoint wrapper's session check), so its
 * declaration names only what its core does.
 */
import type { Partition } from './db/keys';

export type ItemAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem'
  | 'BatchWriteItem';

export type Queue = 'WebhookDeliveryQueue' | 'PullRunQueue';
export type QueueAction = 'SendMessage' | 'ChangeMessageVisibility';
/** The SSM SecureStrings a function reads: the JWT signing key, the key that seals tenants' secrets. */
export type Secret = 'jwtKey' | 'secretsKey';

export interface Deployment {
  /**
   * The item actions it sends to the table, each with the partitions (lib/db/keys.ts) its keys are
   * in: its role allows the action on exactly those (`dynamodb:LeadingKeys`). A transaction is
   * authorized per item, as the item's own action.
   */
  readonly table?: Readonly<Partial<Record<ItemAction, readonly Partition[]>>>;
  /** The indexes it queries (Query only; an index holds tenant partitions, a condition adds nothing). */
  readonly indexes?: readonly ('gsi1' | 'gsi2')[];
  /**
   * It publishes webhook events (lib/webhooks/publisher.ts): the tenant's endpoints (Query of
   * `TENANT#`), a delivery per endpoint (Put of `WEBHOOK#`), the message (SQS; on the local stage
   * the local queue in the table, `QUEUE#`).
   */
  readonly publishesWebhookEvents?: boolean;
  readonly queues?: Readonly<Partial<Record<Queue, readonly QueueAction[]>>>;
  readonly secrets?: readonly Secret[];
  /**
   * It calls URLs tenants chose (lib/egress/): the concurrency reserved for it, which is also all it
   * may ever hold of the account's (docs/operations.md, "Capacity of the functions that call tenant
   * URLs"). A template test refuses a bundle with the egress guard and no reservation.
   */
  readonly tenantUrls?: { readonly reservedConcurrency: number };
  /** Not an HTTP route: what runs it. */
  readonly trigger?:
    | { readonly schedule: string }
    | { readonly queue: Queue; readonly batchSize: number; readonly maximumBatchingWindow: number };
  /** MB; the provider's 1024 otherwise. */
  readonly memorySize?: number;
  /** Seconds; the stage's `lambdaTimeout` otherwise (10 s on AWS). */
  readonly timeout?: number;
  /** The function's name in serverless.yml when it is not the file's name in camelCase. */
  readonly name?: string;
}

export const defineDeployment = <const D extends Deployment>(deployment: D): D => deployment;
