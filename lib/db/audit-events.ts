import { PutCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import {
  type AuditEventType,
  type AuditEventView,
  auditEventSchema,
  type TenantAuditEvent,
} from '../domain/audit-event';
import { id } from '../domain/values';
import type { Database } from './client';
import { defineEntity, inKey } from './entity';
import { cancellationReasons } from './errors';
import { keys } from './keys';
import { cursorAfter, type Page, type PageRequest, queryPage, type ReadBounds } from './pagination';

/**
 * A tenant's audit events, in a partition of their own (`AUDIT#<tid>`), sorted by time: the audit log
 * is one Query, newest first, of a range of time. What is audited, and who may read it, is decided
 * above this module; a change and its event are written in one transaction where the change is a
 * write (docs/architecture.md, "The audit log"), through `auditEventPut`.
 */

/** How long an event is kept unless the stage says otherwise (AUDIT_RETENTION_DAYS). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/**
 * An event item: the event, its tenant (the partition's, left out of reads) and when it expires
 * (`ttl`, epoch seconds). Its type is stored as `eventType`, since `type` is every item's entity.
 */
export const auditEvents = /* @__PURE__ */ defineEntity(() => ({
  type: 'AUDITEVENT',
  schema: z.extend(auditEventSchema, { tenantId: id, expiresAt: z.int() }),
  key: (event) => keys.auditEvent(event.tenantId, event.at, event.id),
  stored: {
    tenantId: inKey('pk', keys.auditEvent),
    type: { attribute: 'eventType' },
    expiresAt: { attribute: 'ttl' },
  },
  hidden: ['tenantId', 'expiresAt'],
}));

const expiryOf = (db: Database, at: string) =>
  Math.floor(Date.parse(at) / 1000) + (db.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * 86_400;

/** An event of a tenant as stored: with the table's retention as its expiry. */
const itemOf = (db: Database, event: TenantAuditEvent) =>
  auditEvents.toItem({ ...event, expiresAt: expiryOf(db, event.at) });

/**
 * The write of an event, for the transaction of the change it records (`TransactItems`). Its key is
 * new (a UUIDv7 id): the condition only guards against writing over an event.
 */
export const auditEventPut = (db: Database, event: TenantAuditEvent) => ({
  Put: {
    TableName: db.tableName,
    Item: itemOf(db, event),
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/**
 * A conditional change and its event in one transaction: true when both were written, false when the
 * change's condition did not hold (nothing was written). Any other failure is thrown.
 */
export const writtenWithEvent = async (
  db: Database,
  change: NonNullable<TransactWriteCommandInput['TransactItems']>[number],
  event: TenantAuditEvent,
): Promise<boolean> => {
  try {
    await db.client.send(new TransactWriteCommand({ TransactItems: [change, auditEventPut(db, event)] }));
    return true;
  } catch (error) {
    if (cancellationReasons(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
};

/** Writes an event on its own: one that records no write of the service (a login, a report of a key). */
export const putAuditEvent = async (db: Database, event: TenantAuditEvent) => {
  await db.client.send(new PutCommand(auditEventPut(db, event).Put));
};

export interface AuditQuery {
  /** Inclusive, an instant as `toISOString` writes it. */
  from?: string | undefined;
  /** Exclusive, as `from`. */
  to?: string | undefined;
  types?: readonly AuditEventType[] | undefined;
  actorId?: string | undefined;
  /** A user's e-mail as the event recorded it (`actor.email`). */
  actorEmail?: string | undefined;
  targetId?: string | undefined;
  /** `newest` first (the list), or `oldest` first (the export, which follows the log as it grows). */
  order: 'newest' | 'oldest';
}

/**
 * A filtered page reads at most this much: 10 calls of up to 1,000 events (about 600 KB each, within
 * the 1 MB DynamoDB reads per call), then ends with what it found and a cursor. So a filter that
 * matches few events of a long log cannot keep a request past the function's time.
 */
export const AUDIT_READ_BOUNDS: ReadBounds = { perCall: 1000, maxCalls: 10 };

/**
 * One page of a tenant's events in a range of time, newest or oldest first, narrowed by type, actor
 * and target: one Query of the range, the filters applied to what it reads (bounded by
 * AUDIT_READ_BOUNDS), expired events left out (DynamoDB deletes them late; DynamoDB Local never).
 */
export const auditEventPage = (
  db: Database,
  tenantId: string,
  query: AuditQuery,
  page: PageRequest,
  now = Date.now(),
): Promise<Page<AuditEventView>> => {
  const { pk, skPrefix, skFrom, skTo } = keys.auditEventsOfTenant(tenantId, query.from, query.to);
  const types = query.types ?? [];
  const conditions = [
    '#ttl > :now',
    ...(types.length > 0 ? [`#eventType IN (${types.map((_, i) => `:type${i}`).join(', ')})`] : []),
    ...(query.actorId === undefined ? [] : ['#actor.#id = :actor']),
    ...(query.actorEmail === undefined ? [] : ['#actor.#email = :actorEmail']),
    ...(query.targetId === undefined ? [] : ['#target.#id = :target']),
  ];
  const filtered = conditions.length > 1;
  return queryPage(
    db,
    {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      FilterExpression: conditions.join(' AND '),
      ExpressionAttributeNames: {
        '#ttl': 'ttl',
        ...(types.length > 0 ? { '#eventType': 'eventType' } : {}),
        ...(query.actorId === undefined && query.actorEmail === undefined ? {} : { '#actor': 'actor' }),
        ...(query.actorEmail === undefined ? {} : { '#email': 'email' }),
        ...(query.targetId === undefined ? {} : { '#target': 'target' }),
        ...(query.actorId === undefined && query.targetId === undefined ? {} : { '#id': 'id' }),
      },
      ExpressionAttributeValues: {
        ':pk': pk,
        ':from': skFrom,
        ':to': skTo,
        ':now': Math.floor(now / 1000),
        ...Object.fromEntries(types.map((type, i) => [`:type${i}`, type])),
        // Left out when undefined (the client's removeUndefinedValues), as the filter then is.
        ':actor': query.actorId,
        ':actorEmail': query.actorEmail,
        ':target': query.targetId,
      },
      ScanIndexForward: query.order === 'oldest',
    },
    { pk },
    page,
    (item) => auditEvents.fromItem(item),
    { name: 'sk', prefix: skPrefix, from: skFrom, to: skTo },
    // Expired events are few and at the old end: without another filter, a page reads as any list.
    filtered ? AUDIT_READ_BOUNDS : undefined,
  );
};

/** The cursor that continues a tenant's log after this event (the export's, also at its end). */
export const cursorAfterEvent = (tenantId: string, event: Pick<AuditEventView, 'at' | 'id'>) =>
  cursorAfter(keys.auditEvent(tenantId, event.at, event.id));
