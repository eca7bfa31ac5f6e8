import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { USAGE_REFUSALS, type UsageDay, type UsageRefusal, usageDaySchema } from '../domain/api-key-usage';
import type { Database } from './client';
import { defineEntity, inKey } from './entity';
import { MalformedItem, writtenUnlessConditionFails } from './errors';
import { keys } from './keys';
import {
  type CounterWindow,
  expiredWindowAttribute,
  expiredWindowAttributes,
  windowAttribute,
} from './window-counters';

/**
 * How an API key is used: one small item per key and UTC day (`APIKEY#<sha256>` / `USAGE#<day>`), the
 * only item the push path writes besides the measurements. It is in no index and stays under 1 KB
 * (a dozen counters, two instants, two source addresses of at most 45 characters and a User-Agent of
 * at most 200), so each write costs exactly one write unit. It expires 90 days after its day (`ttl`);
 * DynamoDB Local never deletes expired items, so readers ask for a range of days.
 *
 * - Rate limit: one counter attribute per fixed window, named after the window's start
 *   (`w<epochSeconds>`), on the item of the window's day, as ./window-counters.ts counts. `ADD` is
 *   atomic, so every concurrent request gets its own ordinal and admission (`count <= limit`) is exact
 *   across all Lambda containers. The same update removes the attribute of the window before the
 *   previous one, and a successful push removes any older one; the previous window's stays, since
 *   requests that started in it may still be counted (./window-counters.ts says why).
 * - Counts: `requests` (authenticated and counted against the rate limit), `accepted` and
 *   `measurements` (successful pushes), and refusals by reason (`refused_<reason>`), each by `ADD`
 *   in an update that the push already makes, or in one for a refused request of a known key.
 * - `firstAt`, `lastAt`: the day's first and last request; `lastSourceIp`, `lastUserAgent`: where the
 *   last one came from; `lastRefusedSourceIp`: where the last one refused for its source came from;
 *   `lastUsedAt`: the last successful request (spec 2.7).
 */
export const USAGE_RETENTION_DAYS = 90;

const DAY_MS = 86_400_000;

const counter = /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.nonnegative());

/** A window's counter on a day's item, parsed: the requests counted in it so far (absent: none). */
const windowCount = (item: Record<string, unknown>, attribute: string): number => {
  const parsed = z.safeParse(counter, item[attribute] ?? 0);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({ ...issue, path: [attribute, ...issue.path] }));
  throw new MalformedItem(apiKeyUsageDays.type, item, issues, parsed.error);
};

/** The UTC day (`YYYY-MM-DD`) of an instant in epoch milliseconds. */
export const dayOf = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

/** Where a request came from (API Gateway's request context), as the caller decided to keep it. */
export interface RequestSource {
  /** The request's time, ISO 8601. */
  at: string;
  sourceIp?: string | undefined;
  userAgent?: string | undefined;
}

/** When a day's item expires: USAGE_RETENTION_DAYS after the day ends (epoch seconds, `ttl`). */
const expiryOf = (day: string) =>
  Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + (USAGE_RETENTION_DAYS + 1) * 86_400;

/** A refusal reason's counter attribute. */
const refusedAttribute = (reason: UsageRefusal) => `refused_${reason}`;

/**
 * A key's day of usage as stored: the day is in the key, and with it the item's expiry; refusals are
 * one counter attribute per reason (each counted by `ADD`, which needs no map to exist first); the
 * day's first and last request are `firstAt` and `lastAt`. A counter no request has added yet is 0.
 * The rate-limit windows (`w<epochSeconds>`) are not fields: `countRequest` reads its own.
 */
export const apiKeyUsageDays = /* @__PURE__ */ defineEntity(() => ({
  type: 'USAGE',
  schema: z.extend(usageDaySchema, { keyHash: z.string() }),
  key: (day) => keys.apiKeyUsageDay(day.keyHash, day.date),
  hidden: ['keyHash'],
  stored: {
    keyHash: inKey('pk', keys.apiKey),
    date: {
      read: inKey('sk', keys.apiKeyUsageDay).read,
      write: (date) => ({ ttl: expiryOf(date) }),
    },
    requests: { default: 0 },
    accepted: { default: 0 },
    measurements: { default: 0 },
    refused: {
      read: (item) => Object.fromEntries(USAGE_REFUSALS.map((r) => [r, item[refusedAttribute(r)] ?? 0])),
      write: (refused) => Object.fromEntries(USAGE_REFUSALS.map((r) => [refusedAttribute(r), refused[r]])),
    },
    firstRequestAt: { attribute: 'firstAt' },
    lastRequestAt: { attribute: 'lastAt' },
  },
}));

/** What a day's item reads as before anything was counted on it: every counter 0, every time null. */
const NOTHING_COUNTED = /* @__PURE__ */ apiKeyUsageDays.fromItem(keys.apiKeyUsageDay('', '1970-01-01'));

/** A day without requests, as its item would read: a new field's default comes with it. */
export const emptyUsageDay = (date: string): UsageDay => ({
  ...NOTHING_COUNTED,
  date,
  refused: { ...NOTHING_COUNTED.refused },
});

/** The attributes every write of a day sets: the day's first and last request, and where it came from. */
const requestFields = (day: string, source: RequestSource) => {
  const names: Record<string, string> = {
    '#type': 'type',
    '#ttl': 'ttl',
    '#firstAt': 'firstAt',
    '#lastAt': 'lastAt',
  };
  const values: Record<string, unknown> = {
    ':type': apiKeyUsageDays.type,
    ':ttl': expiryOf(day),
    ':at': source.at,
  };
  const set = ['#type = :type', '#ttl = :ttl', '#firstAt = if_not_exists(#firstAt, :at)', '#lastAt = :at'];
  if (source.sourceIp !== undefined) {
    names['#sourceIp'] = 'lastSourceIp';
    values[':sourceIp'] = source.sourceIp;
    set.push('#sourceIp = :sourceIp');
  }
  if (source.userAgent !== undefined) {
    names['#userAgent'] = 'lastUserAgent';
    values[':userAgent'] = source.userAgent;
    set.push('#userAgent = :userAgent');
  }
  return { names, values, set };
};

export interface RequestCount {
  /** This request's ordinal in its window. */
  count: number;
  /** The day whose item holds the window: the day of the window's start. */
  day: string;
  /** Counter attributes of windows no request counts in any more; the next successful write removes them. */
  staleWindows: string[];
}

/**
 * Counts one request of an authenticated key in the window starting at `windowStart` (epoch seconds),
 * on the item of that window's day (so a window never counts on two items), with the request's time
 * and source. Call it only for a key known to exist: the update creates the day's item.
 */
export const countRequest = async (
  { client, tableName }: Database,
  keyHash: string,
  window: CounterWindow,
  source: RequestSource,
): Promise<RequestCount> => {
  const { windowStart } = window;
  const day = dayOf(windowStart * 1000);
  const current = windowAttribute(windowStart);
  const fields = requestFields(day, source);
  const { Attributes = {} } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.apiKeyUsageDay(keyHash, day),
      UpdateExpression: `ADD #current :one, #requests :one SET ${fields.set.join(', ')} REMOVE #expired`,
      ExpressionAttributeNames: {
        ...fields.names,
        '#current': current,
        '#requests': 'requests',
        '#expired': expiredWindowAttribute(window),
      },
      ExpressionAttributeValues: { ...fields.values, ':one': 1 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return {
    count: windowCount(Attributes, current),
    day,
    staleWindows: expiredWindowAttributes(Attributes, window),
  };
};

/**
 * A successful request (spec 2.7, 5.2.5): counted as accepted with its measurements, and `lastUsedAt`,
 * which never moves backwards (of two concurrent pushes the later time stays), in the one update a
 * push already makes. Also removes the stale counters `countRequest` reported. When a later push
 * already set a later `lastUsedAt`, the condition fails and the counts are added without it, so no
 * push goes uncounted.
 */
export const recordUse = async (
  { client, tableName }: Database,
  keyHash: string,
  {
    day,
    at,
    measurements,
    staleWindows,
  }: { day: string; at: string; measurements: number; staleWindows: readonly string[] },
): Promise<void> => {
  const remove = staleWindows.map((_, i) => `#stale${i}`);
  const update = (withLastUsed: boolean) =>
    client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.apiKeyUsageDay(keyHash, day),
        UpdateExpression:
          `ADD #accepted :one, #measurements :measurements${withLastUsed ? ' SET #lastUsedAt = :at' : ''}` +
          (remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''),
        ...(withLastUsed
          ? { ConditionExpression: 'attribute_not_exists(#lastUsedAt) OR #lastUsedAt < :at' }
          : {}),
        ExpressionAttributeNames: {
          '#accepted': 'accepted',
          '#measurements': 'measurements',
          ...(withLastUsed ? { '#lastUsedAt': 'lastUsedAt' } : {}),
          ...Object.fromEntries(staleWindows.map((name, i) => [`#stale${i}`, name])),
        },
        ExpressionAttributeValues: {
          ':one': 1,
          ':measurements': measurements,
          ...(withLastUsed ? { ':at': at } : {}),
        },
      }),
    );
  if (!(await writtenUnlessConditionFails(update(true)))) await update(false);
};

/** A refused request of a known key, counted by reason on its day, with its time and source. */
export const countRefusal = async (
  { client, tableName }: Database,
  keyHash: string,
  day: string,
  reason: UsageRefusal,
  source: RequestSource,
): Promise<void> => {
  const fields = requestFields(day, source);
  // A source refusal also keeps the refused address apart: the day's last request may come from an
  // allowed one right after, and the refused address is what the key's owner needs to see.
  if (reason === 'source' && source.sourceIp !== undefined) {
    fields.names['#refusedSource'] = 'lastRefusedSourceIp';
    fields.set.push('#refusedSource = :sourceIp');
  }
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.apiKeyUsageDay(keyHash, day),
      UpdateExpression: `ADD #refused :one SET ${fields.set.join(', ')}`,
      ExpressionAttributeNames: { ...fields.names, '#refused': refusedAttribute(reason) },
      ExpressionAttributeValues: { ...fields.values, ':one': 1 },
    }),
  );
};

/** The stored days of a key from `from` to `to` (inclusive, `YYYY-MM-DD`), oldest first: one Query. */
export const usageDays = async (
  { client, tableName }: Database,
  keyHash: string,
  from: string,
  to: string,
): Promise<UsageDay[]> => {
  const { pk } = keys.apiKeyUsageDays(keyHash);
  // Stryker disable next-line ArrayDeclaration: DynamoDB always answers a Query with Items
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': pk,
        ':from': keys.apiKeyUsageDay(keyHash, from).sk,
        ':to': keys.apiKeyUsageDay(keyHash, to).sk,
      },
    }),
  );
  return Items.map(apiKeyUsageDays.fromItem);
};

/**
 * The stored days of each of the keys at these hashes within the retention, newest first, by hash: one
 * Query per key, all in parallel. A key has at most 91 such items of under 1 KB, so each Query is one
 * page and at most 12 read units (4 eventually consistent).
 */
export const recentUsageOf = async (
  db: Database,
  keyHashes: string[],
  now = Date.now(),
): Promise<Map<string, UsageDay[]>> => {
  // Stryker disable next-line StringLiteral: a usage day's sort key does not depend on its key
  const from = keys.apiKeyUsageDay('', dayOf(now - USAGE_RETENTION_DAYS * DAY_MS)).sk;
  // Stryker disable next-line StringLiteral: as above
  const to = keys.apiKeyUsageDay('', dayOf(now)).sk;
  const daysOf = async (hash: string): Promise<[string, UsageDay[]]> => {
    const days: UsageDay[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db.client.send(
        new QueryCommand({
          TableName: db.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': keys.apiKeyUsageDays(hash).pk, ':from': from, ':to': to },
          ScanIndexForward: false,
          ExclusiveStartKey: start,
        }),
      );
      // Stryker disable next-line ArrayDeclaration: DynamoDB always answers a Query with Items
      days.push(...(page.Items ?? []).map(apiKeyUsageDays.fromItem));
      start = page.LastEvaluatedKey;
    } while (start);
    return [hash, days];
  };
  return new Map(await Promise.all(keyHashes.map(daysOf)));
};

/** The requests counted so far in the window starting at `windowStart`, without counting one. */
export const requestsInWindow = async (
  { client, tableName }: Database,
  keyHash: string,
  windowStart: number,
): Promise<number> => {
  const { Item } = await client.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.apiKeyUsageDay(keyHash, dayOf(windowStart * 1000)),
      // Stryker disable next-line BooleanLiteral: DynamoDB Local serves every read consistently
      ConsistentRead: true,
    }),
  );
  return Item ? windowCount(Item, windowAttribute(windowStart)) : 0;
};
