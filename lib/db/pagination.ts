import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { AppError } from '../errors';
import type { Database } from './client';
import { GSI1 } from './keys';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

/** The list envelope of every collection: without `nextCursor` the list is complete. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** The cursor that continues a query after the item with this key (its table and index key attributes). */
export const cursorAfter = (key: Record<string, unknown>): string =>
  Buffer.from(JSON.stringify(key)).toString('base64url');

/** The answer to any cursor that is not one this service handed out for the query at hand. */
export const invalidCursor = () =>
  new AppError('VALIDATION_FAILED', 'The cursor is invalid; use the nextCursor of the previous page.', {
    errors: [{ path: 'cursor', message: 'Invalid cursor' }],
  });

/** What a cursor must be for one query: exactly its key attributes, in its partition and key range. */
export interface CursorShape {
  /** The table's key attributes, and the index's for a query of the index. */
  keyNames: readonly string[];
  /** The partition-key attribute and value of the query. */
  partition: Record<string, string>;
  /**
   * The query's sort-key attribute and the prefix its key condition requires (`begins_with`), or the
   * range it requires (`BETWEEN from AND to`; its keys share the prefix).
   */
  sortKey?: { name: string; prefix: string; from?: string; to?: string };
}

/** DynamoDB's limits on key values: a partition key of at most 2048 bytes, a sort key of at most 1024. */
const MAX_PARTITION_KEY_BYTES = 2048;
const MAX_SORT_KEY_BYTES = 1024;
const SORT_KEYS = new Set(['sk', 'gsi1sk']);

/** A string DynamoDB takes as a key value: not empty, valid UTF-16 (no lone surrogate), within its size in UTF-8 (Buffer's default). */
const isKeyValue = (name: string, value: unknown): value is string => {
  if (typeof value !== 'string' || value === '') return false;
  const bytes = Buffer.byteLength(value);
  const max = SORT_KEYS.has(name) ? MAX_SORT_KEY_BYTES : MAX_PARTITION_KEY_BYTES;
  // A lone surrogate does not survive the round trip through UTF-8.
  return bytes <= max && Buffer.from(value).toString() === value;
};

/**
 * Cursors are DynamoDB's LastEvaluatedKey, base64url-encoded (the API seals them further:
 * lib/http/cursors.ts). A decoded cursor must have exactly the shape DynamoDB accepts as the start of
 * this query, or DynamoDB refuses it with a ValidationException (a 500): exactly the key attributes,
 * each a key value DynamoDB takes, in the partition being queried (otherwise a hand-made cursor could
 * also point a query at another tenant's items) and strictly within the sort-key range of the key condition.
 */
const decodeCursor = (
  cursor: string,
  { keyNames, partition, sortKey }: CursorShape,
): Record<string, string> => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    // Not JSON: decoded stays undefined and is refused below.
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) throw invalidCursor();
  const entries = Object.entries(decoded);
  if (entries.length !== keyNames.length || !keyNames.every((name) => Object.hasOwn(decoded, name))) {
    throw invalidCursor();
  }
  const key: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!isKeyValue(name, value)) throw invalidCursor();
    key[name] = value;
  }
  for (const [name, value] of Object.entries(partition)) {
    if (key[name] !== value) throw invalidCursor();
  }
  if (sortKey) {
    // Stryker disable next-line StringLiteral: every key attribute is in the cursor (checked above)
    const value = key[sortKey.name] ?? '';
    if (!value.startsWith(sortKey.prefix)) throw invalidCursor();
    // Strictly inside: DynamoDB refuses a start key on an end of the range ("outside query
    // boundaries"), and no item's key is one, since an item's key goes on after the instant.
    // Stryker disable ConditionalExpression: a comparison with an absent bound is false anyway
    if (
      (sortKey.from !== undefined && value <= sortKey.from) ||
      (sortKey.to !== undefined && value >= sortKey.to)
    ) {
      throw invalidCursor();
    }
    // Stryker restore ConditionalExpression
  }
  return key;
};

/**
 * How far one page of a filtered query reads, where a filter may match few of the items it reads: the
 * items DynamoDB reads per call (`Limit`), and the calls after which the page ends, with what it found
 * and a cursor to where it stopped, however few that is.
 */
export interface ReadBounds {
  perCall: number;
  maxCalls: number;
}

/**
 * Runs one page of a Query. `partition` names the partition-key attribute and value of the query, and
 * `sortKey` the prefix or range its key condition puts on the sort key: a cursor must lie within both.
 *
 * With a FilterExpression, DynamoDB applies `Limit` before the filter, so one call may return fewer
 * matches than asked for (even none) while more exist. Clients are promised `limit` items per page
 * unless the list is complete, so the query continues until it has them. A call that found more is
 * cut, and the cursor is made from the last item returned (its table and index key attributes are what
 * DynamoDB would have put in LastEvaluatedKey). With `bounds`, a page reads at most that much: it may
 * then end short of `limit`, with a cursor, while more items exist.
 */
export const queryPage = async <T>(
  { client, tableName }: Database,
  input: Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ExclusiveStartKey'>,
  partition: Record<string, string>,
  page: PageRequest,
  toItem: (item: Record<string, unknown>) => T,
  sortKey?: CursorShape['sortKey'],
  bounds?: ReadBounds,
): Promise<Page<T>> => {
  const keyNames = input.IndexName ? ['pk', 'sk', 'gsi1pk', 'gsi1sk'] : ['pk', 'sk'];
  const found: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined = page.cursor
    ? decodeCursor(page.cursor, { keyNames, partition, ...(sortKey ? { sortKey } : {}) })
    : undefined;
  for (let calls = 1; ; calls++) {
    // One item more than asked for tells whether another page exists: a list that ends exactly at a
    // page boundary gets no cursor to an empty page (DynamoDB alone would give one).
    const result = await client.send(
      new QueryCommand({
        ...input,
        TableName: tableName,
        Limit: Math.max(page.limit + 1, bounds?.perCall ?? 0),
        ExclusiveStartKey: startKey,
      }),
    );
    // Stryker disable next-line ArrayDeclaration: DynamoDB always answers a Query with Items (empty when none match)
    found.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
    if (!startKey || !input.FilterExpression || found.length > page.limit) break;
    if (bounds && calls >= bounds.maxCalls) break;
  }
  if (found.length > page.limit) {
    found.length = page.limit;
    const last = found[page.limit - 1];
    startKey = Object.fromEntries(keyNames.map((name) => [name, last?.[name]]));
  }
  const items = found.map(toItem);
  return startKey ? { items, nextCursor: cursorAfter(startKey) } : { items };
};

/** Narrows a list query to items whose attribute equals a value (applied after the key condition). */
export interface EqualsFilter {
  attribute: string;
  value: string;
}

/**
 * One page of the items under a key prefix in a partition: of the table (`pk`/`sk`) or of the tenant
 * index (`gsi1pk`/`gsi1sk`). Every list endpoint is this query.
 */
export const queryPrefix = <T>(
  db: Database,
  target: { pk: string; skPrefix: string } | { gsi1pk: string; gsi1skPrefix: string },
  page: PageRequest,
  toItem: (item: Record<string, unknown>) => T,
  filter?: EqualsFilter,
  bounds?: ReadBounds,
): Promise<Page<T>> => {
  const onIndex = 'gsi1pk' in target;
  const [pkName, skName, pk, prefix] = onIndex
    ? (['gsi1pk', 'gsi1sk', target.gsi1pk, target.gsi1skPrefix] as const)
    : (['pk', 'sk', target.pk, target.skPrefix] as const);
  return queryPage(
    db,
    {
      ...(onIndex ? { IndexName: GSI1 } : {}),
      KeyConditionExpression: `${pkName} = :pk AND begins_with(${skName}, :prefix)`,
      ExpressionAttributeValues: {
        ':pk': pk,
        ':prefix': prefix,
        ...(filter ? { ':filter': filter.value } : {}),
      },
      ...(filter
        ? { FilterExpression: '#filter = :filter', ExpressionAttributeNames: { '#filter': filter.attribute } }
        : {}),
    },
    { [pkName]: pk },
    page,
    toItem,
    { name: skName, prefix },
    bounds,
  );
};
