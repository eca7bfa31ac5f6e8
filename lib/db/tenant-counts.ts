import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TenantAuditEvent } from '../domain/audit-event';
import { auditEventPut } from './audit-events';
import type { Database } from './client';
import { cancellationReasons, WriteConflict } from './errors';
import type { ItemKey } from './keys';

/**
 * A tenant's count of one kind of item (webhook endpoints, pull integrations): a count item written
 * in the same transaction as every item it counts, so that its condition holds the tenant to a plan's
 * maximum under concurrency. Nothing reads it to decide.
 */
export interface TenantCount {
  /** The count item's `type`. */
  type: string;
  key: (tenantId: string) => ItemKey;
  /** The count item, as a WriteConflict names it. */
  subject: WriteConflict['on'];
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Writes one more counted item (`write`, a transaction item) with its audit event and the items it
 * needs to hold with it (`also`, after the event: their reasons from the fourth on): at most `max`
 * (`null`: any number, still counted). A refusal by the count is `limitReached(cause)`; a transaction
 * that met another on the count item is a WriteConflict: nothing was written, and the caller tries again.
 */
export const writeCounted = async (
  db: Database,
  count: TenantCount,
  tenantId: string,
  max: number | null,
  write: TransactItem,
  event: TenantAuditEvent,
  limitReached: (cause: unknown) => Error,
  also: readonly TransactItem[] = [],
): Promise<void> => {
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: db.tableName,
              Key: count.key(tenantId),
              UpdateExpression: 'SET #type = :type ADD #count :one',
              ...(max === null
                ? {}
                : { ConditionExpression: 'attribute_not_exists(#count) OR #count < :max' }),
              ExpressionAttributeNames: { '#count': 'count', '#type': 'type' },
              ExpressionAttributeValues: {
                ':one': 1,
                ':type': count.type,
                ...(max === null ? {} : { ':max': max }),
              },
            },
          },
          write,
          auditEventPut(db, event),
          ...also,
        ],
      }),
    );
  } catch (error) {
    // Stryker disable next-line ArrayDeclaration: no reasons and a made-up one are both no known reason
    const [counted] = cancellationReasons(error) ?? [];
    if (counted === 'ConditionalCheckFailed') throw limitReached(error);
    if (counted === 'TransactionConflict') throw new WriteConflict(count.subject, { cause: error });
    throw error;
  }
};

/**
 * Removes or ends one counted item (`removal`, a transaction item whose condition says it is still
 * counted) with its audit event, and counts one fewer: false when the removal's condition failed
 * (already gone), a WriteConflict when the transaction met another.
 */
export const removeCounted = async (
  db: Database,
  count: TenantCount,
  tenantId: string,
  removal: TransactItem,
  event: TenantAuditEvent,
): Promise<boolean> => {
  try {
    await db.client.send(
      new TransactWriteCommand({
        TransactItems: [
          removal,
          {
            Update: {
              TableName: db.tableName,
              Key: count.key(tenantId),
              UpdateExpression: 'ADD #count :minusOne',
              ExpressionAttributeNames: { '#count': 'count' },
              ExpressionAttributeValues: { ':minusOne': -1 },
            },
          },
          auditEventPut(db, event),
        ],
      }),
    );
    return true;
  } catch (error) {
    // Stryker disable next-line ArrayDeclaration: no reasons and a made-up one are both no known reason
    const reasons = cancellationReasons(error) ?? [];
    if (reasons[0] === 'ConditionalCheckFailed') return false;
    if (reasons.includes('TransactionConflict')) throw new WriteConflict(count.subject, { cause: error });
    throw error;
  }
};
