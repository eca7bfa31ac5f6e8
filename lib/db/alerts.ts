import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { ApiKey } from '../domain/api-key';
import type { Kpi } from '../domain/kpi';
import { id } from '../domain/values';
import { toStored } from './api-keys';
import type { Database } from './client';
import { dueEntries } from './due-indexes';
import { defineEntity, inKey } from './entity';
import { writtenUnlessConditionFails } from './errors';
import { GSI2, keys } from './keys';
import { toKpi } from './kpis';
import { queryPrefix } from './pagination';

/**
 * What the scheduled alert check reads and marks. Both reads are range Queries of the sparse index
 * gsi2 (lib/db/keys.ts), never a Scan; the marks and the moves of a KPI's entry are conditional updates
 * of the KPI and key items, so that of two checks running at once exactly one records (and then
 * notifies) each alert.
 */

const DAY_MS = 86_400_000;

/**
 * A KPI whose entry in the alert check's index is due: the KPI, the quiet spell it was last notified
 * of (its `lastMeasurementAt`, or `never`), and its entry (`gsi2sk`), which a move is conditional on.
 */
export interface DueKpi {
  kpi: Kpi;
  quietNotifiedFor: string | null;
  entry: string;
}

/** Every page of one index Query. */
const queryAll = async (
  { client, tableName }: Database,
  input: { KeyConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> },
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({ TableName: tableName, IndexName: GSI2, ...input, ExclusiveStartKey: start }),
    );
    // Stryker disable next-line ArrayDeclaration: DynamoDB always answers a Query with Items
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

/**
 * The alert marks on KPI and key items (lib/db/keys.ts, gsi2): the quiet spell a KPI was last notified
 * of, and the most urgent expiry notice sent for a key. Written only by the conditional updates below;
 * null before the first.
 */
export const quietMarks = /* @__PURE__ */ defineEntity(() => ({
  type: 'KPI',
  schema: z.object({ kpiId: id, quietNotifiedFor: z.nullable(z.string()) }),
  key: (mark) => keys.kpi(mark.kpiId),
  stored: { kpiId: { attribute: 'id' } },
}));

export const expiryMarks = /* @__PURE__ */ defineEntity(() => ({
  type: 'APIKEY',
  schema: z.object({ keyHash: z.string(), expiryNoticeDays: z.nullable(z.int()) }),
  key: (mark) => keys.apiKey(mark.keyHash),
  stored: { keyHash: inKey('pk', keys.apiKey) },
}));

/** The sort key of a KPI's entry due at `dueAt` (ms or ISO), as the index orders it. */
const quietEntry = (kpiId: string, dueAt: number | string) =>
  keys.kpiQuietIndex(kpiId, new Date(dueAt).toISOString()).gsi2sk;

/** What one pass of the check reads of the KPI index: the due KPIs, and whether more were due. */
export interface DueKpis {
  due: DueKpi[];
  /** Some shard had more due entries than `perShard`: they wait for the next pass. */
  more: boolean;
}

/**
 * The KPIs due for a look at `now`: one range Query per shard of the index (`gsi2sk` up to `now`), in
 * parallel, of at most `perShard` entries each, so that a pass reads what is due, never what exists,
 * and a backlog is worked off over the next passes.
 */
export const kpisDueForCheck = async (db: Database, now: number, perShard: number): Promise<DueKpis> => {
  const { items, more } = await dueEntries(db, (shard) => keys.kpisDueForCheck(shard).gsi2pk, now, perShard);
  return {
    due: items.map((item) => ({
      kpi: toKpi(item),
      quietNotifiedFor: quietMarks.fromItem(item).quietNotifiedFor,
      entry: String(item.gsi2sk),
    })),
    more,
  };
};

/**
 * Moves a KPI's entry to `dueAt` (ms), only while it is still the one read (`entry`): a change of the
 * KPI's settings in between wins, and of two checks one moves it.
 */
export const moveQuietEntry = (db: Database, kpiId: string, entry: string, dueAt: number) =>
  conditionally(db, {
    TableName: db.tableName,
    Key: keys.kpi(kpiId),
    UpdateExpression: 'SET gsi2sk = :next',
    ConditionExpression: 'gsi2sk = :entry',
    ExpressionAttributeValues: { ':entry': entry, ':next': quietEntry(kpiId, dueAt) },
  });

/** A key with an expiry, its hash (its item's address), and the most urgent expiry notice sent for it. */
export interface ExpiringKey {
  key: ApiKey & { expiresAt: string };
  keyHash: string;
  /** The threshold in days (7 or 1) of the last `api_key.expiring` recorded; null before the first. */
  noticeDays: number | null;
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The keys expiring after `fromMs` and up to `toMs`: one Query per UTC day bucket of gsi2 between the
 * two (eight for a week), each narrowed by the sort key (the expiry), so a bucket's keys that expire
 * outside the window are not read. Revoked and replaced keys are in the answer; the caller skips them.
 */
export const keysExpiringBetween = async (
  db: Database,
  fromMs: number,
  toMs: number,
): Promise<ExpiringKey[]> => {
  const days: string[] = [];
  for (let day = Date.parse(utcDay(fromMs)); day <= toMs; day += DAY_MS) days.push(utcDay(day));
  const from = new Date(fromMs).toISOString();
  // `~` sorts after `#`: the last key expiring at `toMs` exactly is in the range.
  const to = `${new Date(toMs).toISOString()}~`;
  const buckets = await Promise.all(
    days.map((day) =>
      queryAll(db, {
        KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keys.apiKeysExpiringOn(day).gsi2pk, ':from': from, ':to': to },
      }),
    ),
  );
  // Only a key that expires is in a bucket: one whose expiry is gone is not expiring.
  return buckets.flat().flatMap((item) => {
    const { key, keyHash } = toStored(item);
    const { expiresAt } = key;
    const noticeDays = expiryMarks.fromItem(item).expiryNoticeDays;
    // Stryker disable next-line ConditionalExpression,ArrayDeclaration: only a key with an expiry is indexed; the check narrows the type
    return expiresAt === null ? [] : [{ key: { ...key, expiresAt }, keyHash, noticeDays }];
  });
};

/** Runs a conditional update; false when its condition failed (someone else recorded it first). */
const conditionally = (db: Database, update: ConstructorParameters<typeof UpdateCommand>[0]) =>
  writtenUnlessConditionFails(db.client.send(new UpdateCommand(update)));

/**
 * Records that a KPI's quiet spell (named by the last arrival before it) is notified, and moves its
 * entry to `nextAt` (ms), in one conditional update: true for exactly one caller per spell, and only
 * while the KPI still has a cadence and the entry read (`entry`).
 */
export const recordQuietSpell = (
  db: Database,
  kpiId: string,
  spell: string,
  entry: string,
  nextAt: number,
): Promise<boolean> =>
  conditionally(db, {
    TableName: db.tableName,
    Key: keys.kpi(kpiId),
    UpdateExpression: 'SET quietNotifiedFor = :spell, gsi2sk = :next',
    ConditionExpression:
      'attribute_exists(gsi2pk) AND gsi2sk = :entry AND (attribute_not_exists(quietNotifiedFor) OR quietNotifiedFor <> :spell)',
    ExpressionAttributeValues: { ':spell': spell, ':entry': entry, ':next': quietEntry(kpiId, nextAt) },
  });

/**
 * Takes a spell's record back when its event could not be published, and makes the KPI due at `dueAt`
 * (ms), so the next check tries again.
 */
export const forgetQuietSpell = (db: Database, kpiId: string, spell: string, dueAt: number) =>
  conditionally(db, {
    TableName: db.tableName,
    Key: keys.kpi(kpiId),
    UpdateExpression: 'REMOVE quietNotifiedFor SET gsi2sk = :due',
    ConditionExpression: 'quietNotifiedFor = :spell AND attribute_exists(gsi2pk)',
    ExpressionAttributeValues: { ':spell': spell, ':due': quietEntry(kpiId, dueAt) },
  });

/**
 * Records an expiry notice of a key at a threshold (7 or 1 days): true for exactly one caller, and
 * only while the key still expires then, is not revoked or replaced, and has had no notice as urgent.
 */
export const recordExpiryNotice = (
  db: Database,
  keyHash: string,
  days: number,
  expiresAt: string,
): Promise<boolean> =>
  conditionally(db, {
    TableName: db.tableName,
    Key: keys.apiKey(keyHash),
    UpdateExpression: 'SET expiryNoticeDays = :days',
    ConditionExpression:
      'expiresAt = :expiresAt AND attribute_not_exists(revokedAt) AND attribute_not_exists(replacedBy) AND (attribute_not_exists(expiryNoticeDays) OR expiryNoticeDays > :days)',
    ExpressionAttributeValues: { ':days': days, ':expiresAt': expiresAt },
  });

/** Takes a notice back to what it was (`previous`) when its event could not be published. */
export const forgetExpiryNotice = (
  db: Database,
  keyHash: string,
  days: number,
  previous: number | null,
): Promise<boolean> =>
  conditionally(db, {
    TableName: db.tableName,
    Key: keys.apiKey(keyHash),
    UpdateExpression: previous === null ? 'REMOVE expiryNoticeDays' : 'SET expiryNoticeDays = :previous',
    ConditionExpression: 'expiryNoticeDays = :days',
    ExpressionAttributeValues: { ':days': days, ...(previous === null ? {} : { ':previous': previous }) },
  });

/**
 * Puts a key that expires into the expiry index if it is not there: for keys created before the index
 * existed. Idempotent; true when it indexed the key. Only an unrevoked, unreplaced key that still
 * expires then is indexed, since the check skips the others anyway.
 */
export const indexKeyExpiry = (db: Database, keyHash: string, keyId: string, expiresAt: string) =>
  conditionally(db, {
    TableName: db.tableName,
    Key: keys.apiKey(keyHash),
    UpdateExpression: 'SET gsi2pk = :pk, gsi2sk = :sk',
    ConditionExpression:
      'expiresAt = :expiresAt AND attribute_not_exists(gsi2pk) AND attribute_not_exists(revokedAt) AND attribute_not_exists(replacedBy)',
    ExpressionAttributeValues: (() => {
      const { gsi2pk, gsi2sk } = keys.apiKeyExpiryIndex(new Date(expiresAt).toISOString(), keyId);
      return { ':pk': gsi2pk, ':sk': gsi2sk, ':expiresAt': expiresAt };
    })(),
  });

/**
 * The target alert marks on a KPI item: the status and the pace it was last notified of. Absent
 * reads as null: not off track, on pace (a KPI is not notified of being where it was expected to be).
 */
export const targetMarks = /* @__PURE__ */ defineEntity(() => ({
  type: 'KPI',
  schema: z.object({
    kpiId: id,
    statusNotified: z.nullable(z.enum(['off_track', 'other'])),
    paceNotified: z.nullable(z.enum(['on', 'off'])),
  }),
  key: (mark) => keys.kpi(mark.kpiId),
  stored: { kpiId: { attribute: 'id' } },
}));
export type TargetMarks = ReturnType<typeof targetMarks.fromItem>;

export type TargetMark = 'statusNotified' | 'paceNotified';

/** A page of a tenant's KPIs (index gsi1), each with its target alert marks. */
export const kpisWithTargetMarks = (
  db: Database,
  tenantId: string,
  page: { limit: number; cursor?: string | undefined },
) =>
  queryPrefix(db, keys.kpisOfTenant(tenantId), page, (item) => ({
    kpi: toKpi(item),
    marks: targetMarks.fromItem(item),
  }));

/**
 * Moves a KPI's mark from `from` (null: absent) to `to`: true for exactly one caller per move, so of
 * two checks at once one notifies. Taking a mark back is the same move the other way.
 */
export const moveTargetMark = (
  db: Database,
  kpiId: string,
  mark: TargetMark,
  from: string | null,
  to: string | null,
): Promise<boolean> =>
  conditionally(db, {
    TableName: db.tableName,
    Key: keys.kpi(kpiId),
    UpdateExpression: to === null ? 'REMOVE #mark' : 'SET #mark = :to',
    ConditionExpression: `attribute_exists(pk) AND ${from === null ? 'attribute_not_exists(#mark)' : '#mark = :from'}`,
    ExpressionAttributeNames: { '#mark': mark },
    ExpressionAttributeValues: {
      ...(to === null ? {} : { ':to': to }),
      ...(from === null ? {} : { ':from': from }),
    },
  });
