import { BatchGetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { TenantAuditEvent } from '../domain/audit-event';
import { id, timestamp } from '../domain/values';
import {
  type DeliveryAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  webhookDeliverySchema,
  webhookEndpointSchema,
} from '../domain/webhook';
import { writtenWithEvent } from './audit-events';
import type { Database } from './client';
import { defineEntity, inKey } from './entity';
import { type ItemKey, keys } from './keys';
import { type Page, type PageRequest, queryPage } from './pagination';
import { removeCounted, type TenantCount, writeCounted } from './tenant-counts';

/**
 * Webhook endpoints and their deliveries. An endpoint lives in its tenant's partition (reading one
 * needs the tenant, so another tenant's id finds nothing); a deleted endpoint stays as a tombstone
 * until `ttl` removes it, so a repeated DELETE is still answered as the first was, and its deliveries
 * expire with it. Which endpoint may be made, and when one is disabled, is decided above (lib/webhooks/).
 */

/** An endpoint as stored: the entity, its sealed secret and, once deleted, when. */
export interface StoredEndpoint {
  endpoint: WebhookEndpoint;
  sealedSecret: string;
  deletedAt: string | null;
}

/**
 * An endpoint item, in its tenant's partition: the endpoint, its sealed secret, and once deleted, when
 * (the tombstone also gets a `ttl`, which reads do not need).
 */
export const webhookEndpoints = /* @__PURE__ */ defineEntity(() => ({
  type: 'WEBHOOK',
  schema: z.extend(webhookEndpointSchema, { sealedSecret: z.string(), deletedAt: z.nullable(timestamp) }),
  key: (endpoint) => keys.webhookEndpoint(endpoint.tenantId, endpoint.id),
}));

const toStoredEndpoint = (item: Record<string, unknown>): StoredEndpoint => {
  const { sealedSecret, deletedAt, ...endpoint } = webhookEndpoints.fromItem(item);
  return { endpoint, sealedSecret, deletedAt };
};

/** The count item of a tenant's live endpoints, which holds the tenant to the maximum under concurrency. */
export const webhookCounts = /* @__PURE__ */ defineEntity(() => ({
  type: 'WEBHOOKCOUNT',
  schema: z.object({ tenantId: id, count: z.int() }),
  key: (counted) => keys.webhookCount(counted.tenantId),
  stored: { tenantId: inKey('pk', keys.tenant) },
}));

// Literals and a function only, so that a bundle that never counts drops it (no property read at load).
const WEBHOOK_COUNT: TenantCount = {
  type: 'WEBHOOKCOUNT',
  key: (tenantId) => keys.webhookCount(tenantId),
  subject: 'webhook count',
};

/** Why a new endpoint was not written: the tenant already has `max`. */
export class EndpointLimitReached extends Error {
  override name = 'EndpointLimitReached';
}

/**
 * Writes a new endpoint, counts it and records its audit event, in one transaction: the count item
 * allows at most `max` live endpoints per tenant, also when several are created at once. A transaction that met another on the
 * count item is a WriteConflict: nothing was written, and the caller tries again.
 */
export const putEndpoint = async (
  db: Database,
  stored: StoredEndpoint,
  max: number,
  event: TenantAuditEvent,
): Promise<void> => {
  const { endpoint } = stored;
  await writeCounted(
    db,
    WEBHOOK_COUNT,
    endpoint.tenantId,
    max,
    {
      Put: {
        TableName: db.tableName,
        Item: webhookEndpoints.toItem({
          ...endpoint,
          sealedSecret: stored.sealedSecret,
          deletedAt: stored.deletedAt,
        }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    event,
    (cause) => new EndpointLimitReached(`at most ${max} endpoints`, { cause }),
  );
};

/** Every endpoint of a tenant, deleted ones included (at most the maximum plus tombstones). */
export const endpointsOf = async ({ client, tableName }: Database, tenantId: string) => {
  const { pk, skPrefix } = keys.webhookEndpointsOfTenant(tenantId);
  const found: StoredEndpoint[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
        ExclusiveStartKey: startKey,
      }),
    );
    // Stryker disable next-line ArrayDeclaration: DynamoDB always answers a Query with Items
    found.push(...(result.Items ?? []).map(toStoredEndpoint));
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return found;
};

/**
 * An endpoint, strongly consistent. A batch read of one key, so that the JWT functions need no action
 * beyond the session check's BatchGetItem on the tenant's partition.
 */
export const readEndpoint = async (
  { client, tableName }: Database,
  tenantId: string,
  endpointId: string,
): Promise<StoredEndpoint | undefined> => {
  const { Responses } = await client.send(
    new BatchGetCommand({
      RequestItems: {
        // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
        [tableName]: { Keys: [keys.webhookEndpoint(tenantId, endpointId)], ConsistentRead: true },
      },
    }),
  );
  // Stryker disable next-line ArrayDeclaration,OptionalChaining: DynamoDB always answers a BatchGetItem with the table's Responses
  const [item] = Responses?.[tableName] ?? [];
  return item ? toStoredEndpoint(item) : undefined;
};

/** An endpoint and one of its deliveries, in one strongly consistent batch read. */
export const readEndpointAndDelivery = async (
  { client, tableName }: Database,
  tenantId: string,
  endpointId: string,
  deliveryId: string,
): Promise<{ stored: StoredEndpoint | undefined; delivery: WebhookDelivery | undefined }> => {
  const endpointKey = keys.webhookEndpoint(tenantId, endpointId);
  const deliveryKey = keys.webhookDelivery(endpointId, deliveryId);
  const { Responses } = await client.send(
    new BatchGetCommand({
      // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
      RequestItems: { [tableName]: { Keys: [endpointKey, deliveryKey], ConsistentRead: true } },
    }),
  );
  // Stryker disable next-line ArrayDeclaration,OptionalChaining: DynamoDB always answers a BatchGetItem with the table's Responses
  const items = Responses?.[tableName] ?? [];
  // Stryker disable next-line ConditionalExpression,LogicalOperator: the two keys differ in both parts, so either part tells them apart
  const itemOf = (key: ItemKey) => items.find((item) => item.pk === key.pk && item.sk === key.sk);
  const endpointItem = itemOf(endpointKey);
  const deliveryItem = itemOf(deliveryKey);
  return {
    stored: endpointItem ? toStoredEndpoint(endpointItem) : undefined,
    delivery: deliveryItem ? toDelivery(deliveryItem) : undefined,
  };
};

/**
 * Marks an endpoint deleted, once, gives its place back and records its audit event, in one
 * transaction; `expiresAt` (epoch seconds) is when the tombstone goes. False when it was already
 * deleted or never existed: nothing written, nothing recorded.
 */
export const putEndpointDeletion = (
  db: Database,
  tenantId: string,
  endpointId: string,
  at: string,
  expiresAt: number,
  event: TenantAuditEvent,
): Promise<boolean> =>
  removeCounted(
    db,
    WEBHOOK_COUNT,
    tenantId,
    {
      Update: {
        TableName: db.tableName,
        Key: keys.webhookEndpoint(tenantId, endpointId),
        UpdateExpression: 'SET deletedAt = :at, #ttl = :ttl',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':at': at, ':ttl': expiresAt },
      },
    },
    event,
  );

/**
 * Disables an active endpoint, once, with its audit event, in one transaction: false when it was not
 * active (already disabled, or deleted), and then nothing is recorded.
 */
export const putEndpointDisabled = async (
  db: Database,
  tenantId: string,
  endpointId: string,
  at: string,
  reason: string,
  event: TenantAuditEvent,
): Promise<boolean> => {
  return writtenWithEvent(
    db,
    {
      Update: {
        TableName: db.tableName,
        Key: keys.webhookEndpoint(tenantId, endpointId),
        UpdateExpression: 'SET #status = :disabled, disabledAt = :at, disabledReason = :reason',
        ConditionExpression: '#status = :active AND attribute_not_exists(deletedAt)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':disabled': 'disabled',
          ':active': 'active',
          ':at': at,
          ':reason': reason,
        },
      },
    },
    event,
  );
};

/**
 * A delivery item, in its endpoint's partition: the delivery with every attempt, and when its log
 * entry expires (`ttl`, epoch seconds), which reads leave out. One stored before its first attempt has
 * none.
 */
export const webhookDeliveries = /* @__PURE__ */ defineEntity(() => ({
  type: 'WEBHOOKDELIVERY',
  schema: z.extend(webhookDeliverySchema, { expiresAt: z.int() }),
  key: (delivery) => keys.webhookDelivery(delivery.endpointId, delivery.id),
  stored: { attempts: { default: [] }, expiresAt: { attribute: 'ttl' } },
  hidden: ['expiresAt'],
}));

const toDelivery = (item: Record<string, unknown>): WebhookDelivery => webhookDeliveries.fromItem(item);

/** A new delivery; `expiresAt` (epoch seconds) is when its log entry goes. */
export const putDelivery = async (
  { client, tableName }: Database,
  delivery: WebhookDelivery,
  expiresAt: number,
): Promise<void> => {
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: webhookDeliveries.toItem({ ...delivery, expiresAt }),
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
};

/** Appends an attempt to a delivery's log and sets its status and next attempt time. */
export const putDeliveryAttempt = async (
  { client, tableName }: Database,
  delivery: Pick<WebhookDelivery, 'endpointId' | 'id'>,
  attempt: DeliveryAttempt,
  status: WebhookDelivery['status'],
  nextAttemptAt: string | null,
): Promise<void> => {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.webhookDelivery(delivery.endpointId, delivery.id),
      UpdateExpression: `SET attempts = list_append(if_not_exists(attempts, :none), :attempt), #status = :status${
        nextAttemptAt ? ', nextAttemptAt = :next' : ''
      }${nextAttemptAt ? '' : ' REMOVE nextAttemptAt'}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        // Stryker disable next-line ArrayDeclaration: every delivery is written with its attempts list
        ':none': [],
        ':attempt': [attempt],
        ':status': status,
        ...(nextAttemptAt ? { ':next': nextAttemptAt } : {}),
      },
    }),
  );
};

/** One page of an endpoint's deliveries, newest first (ids are UUIDv7). */
export const deliveryPage = (
  db: Database,
  endpointId: string,
  page: PageRequest,
): Promise<Page<WebhookDelivery>> => {
  const { pk, skPrefix } = keys.webhookDeliveries(endpointId);
  return queryPage(
    db,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ScanIndexForward: false,
    },
    { pk },
    page,
    toDelivery,
    { name: 'sk', prefix: skPrefix },
  );
};

/** Ends a delivery without an attempt (its endpoint was deleted or disabled meanwhile). */
export const putDeliveryEnded = async (
  { client, tableName }: Database,
  delivery: Pick<WebhookDelivery, 'endpointId' | 'id'>,
): Promise<void> => {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.webhookDelivery(delivery.endpointId, delivery.id),
      UpdateExpression: 'SET #status = :failed REMOVE nextAttemptAt',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':failed': 'failed' },
    }),
  );
};
