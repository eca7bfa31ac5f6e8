import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchPut } from '../../../../lib/db/batch';
import { keys } from '../../../../lib/db/keys';
import { queryPage, queryPrefix } from '../../../../lib/db/pagination';
import { deliveryPage } from '../../../../lib/db/webhooks';
import { db } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

/** Items of one partition (and of one index partition), `count` of them, every third one red. */
const partition = async (count: number) => {
  const pk = `PAGETEST#${randomUUID()}`;
  const items = Array.from({ length: count }, (_, i) => ({
    pk,
    sk: `ITEM#${String(i).padStart(3, '0')}`,
    gsi1pk: `${pk}#INDEX`,
    gsi1sk: `ITEM#${String(i).padStart(3, '0')}`,
    n: i,
    color: i % 3 === 0 ? 'red' : 'blue',
  }));
  await batchPut(db, items);
  return { pk, items };
};

const all = async <T>(next: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>) => {
  const pages: T[][] = [];
  let cursor: string | undefined;
  do {
    const page = await next(cursor);
    pages.push(page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
};

const n = (item: Record<string, unknown>) => item.n as number;

describe('pages of a key prefix', () => {
  it('a list that ends at a page boundary gets no cursor to an empty page', async () => {
    const { pk } = await partition(4);
    const pages = await all((cursor) => queryPrefix(db, { pk, skPrefix: 'ITEM#' }, { limit: 2, cursor }, n));
    expect(pages).toEqual([
      [0, 1],
      [2, 3],
    ]);
  });

  it('pages through the index too, in sort-key order', async () => {
    const { pk } = await partition(5);
    const pages = await all((cursor) =>
      queryPrefix(db, { gsi1pk: `${pk}#INDEX`, gsi1skPrefix: 'ITEM#' }, { limit: 2, cursor }, n),
    );
    expect(pages).toEqual([[0, 1], [2, 3], [4]]);
  });

  it('with a filter, each page still has `limit` matches unless the list is complete', async () => {
    const { pk } = await partition(20); // red: 0, 3, 6, 9, 12, 15, 18
    const filter = { attribute: 'color', value: 'red' };
    const probe = instrument(db);
    const pages = await all((cursor) =>
      queryPrefix(probe.db, { pk, skPrefix: 'ITEM#' }, { limit: 3, cursor }, n, filter),
    );
    expect(pages).toEqual([[0, 3, 6], [9, 12, 15], [18]]);
    // DynamoDB applies Limit (4) before the filter: the first page needed several calls, and stops
    // at the call that found one match more than asked for (items 8 to 11), not at the end.
    probe.reset();
    await queryPrefix(probe.db, { pk, skPrefix: 'ITEM#' }, { limit: 3 }, n, filter);
    expect(probe.calls).toHaveLength(3);
    const viaIndex = await all((cursor) =>
      queryPrefix(db, { gsi1pk: `${pk}#INDEX`, gsi1skPrefix: 'ITEM#' }, { limit: 4, cursor }, n, filter),
    );
    expect(viaIndex).toEqual([
      [0, 3, 6, 9],
      [12, 15, 18],
    ]);
  });

  it('with a filter, matches that end at a page boundary get no cursor to an empty page', async () => {
    const { pk } = await partition(9); // red: 0, 3, 6; items 7 and 8 are read to know there are no more
    const pages = await all((cursor) =>
      queryPrefix(db, { pk, skPrefix: 'ITEM#' }, { limit: 3, cursor }, n, {
        attribute: 'color',
        value: 'red',
      }),
    );
    expect(pages).toEqual([[0, 3, 6]]);
  });

  it('with read bounds, a filtered page that finds too little ends after maxCalls, with a cursor to go on', async () => {
    const { pk } = await partition(12);
    const probe = instrument(db);
    const page = await queryPage(
      probe.db,
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: 'color = :green',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': 'ITEM#', ':green': 'green' },
      },
      { pk },
      { limit: 2 },
      (item) => item,
      { name: 'sk', prefix: 'ITEM#' },
      { perCall: 1, maxCalls: 3 },
    );
    expect(page).toEqual({ items: [], nextCursor: expect.any(String) });
    expect(probe.calls.map(({ input }) => input.Limit)).toEqual([3, 3, 3]);
  });

  it('refuses a cursor of another partition, or one that is not a key of strings', async () => {
    const [{ pk }, other] = [await partition(3), await partition(3)];
    const foreign = (await queryPrefix(db, { pk: other.pk, skPrefix: 'ITEM#' }, { limit: 1 }, n)).nextCursor;
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      foreign,
      'not base64 json!',
      encode([pk, 'ITEM#001']),
      encode(null),
      encode('text'),
      encode({ pk, sk: 1 }),
      encode({ sk: 'ITEM#001' }),
    ]) {
      await expect(
        queryPrefix(db, { pk, skPrefix: 'ITEM#' }, { limit: 1, cursor: cursor as string }, n),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'The cursor is invalid; use the nextCursor of the previous page.',
        errors: [{ path: 'cursor', message: 'Invalid cursor' }],
      });
    }
    const own = encode({ pk, sk: 'ITEM#000' });
    expect((await queryPrefix(db, { pk, skPrefix: 'ITEM#' }, { limit: 5, cursor: own }, n)).items).toEqual([
      1, 2,
    ]);
  });

  it('refuses a cursor of the right partition whose shape DynamoDB would refuse, as a 400 and never a ValidationException', async () => {
    const { pk } = await partition(3);
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const index = { gsi1pk: `${pk}#INDEX`, gsi1skPrefix: 'ITEM#' };
    const tableCursors = [
      { pk, sk: 'ITEM#000', extra: 'x' }, // an attribute that is not a key
      { pk, extra: 'ITEM#000' }, // as many attributes as the key, one of them not a key
      'ITEM#000', // JSON, but not an object
      { pk, sk: 'ITEM#000', gsi1pk: `${pk}#INDEX`, gsi1sk: 'ITEM#000' }, // an index cursor on the table
      { pk, sk: '' }, // an empty key value
      { pk, sk: `ITEM#${'x'.repeat(1100)}` }, // a sort key over 1024 bytes
      { pk, sk: 'ITEM#\ud800' }, // a lone surrogate
      { pk, sk: 'OTHER#000' }, // outside the key condition's prefix
    ];
    // Not base64url of JSON at all.
    await expect(
      queryPrefix(db, { pk, skPrefix: 'ITEM#' }, { limit: 1, cursor: 'not a cursor!' }, n),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    for (const cursor of tableCursors) {
      await expect(
        queryPrefix(db, { pk, skPrefix: 'ITEM#' }, { limit: 1, cursor: encode(cursor) }, n),
        JSON.stringify(cursor).slice(0, 80),
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    // A sort key of exactly DynamoDB's 1024 bytes is one it takes: the page after it is read.
    const longest = { pk, sk: `ITEM#${'x'.repeat(1024 - 5)}` };
    await expect(
      queryPrefix(db, { pk, skPrefix: 'ITEM#' }, { limit: 1, cursor: encode(longest) }, n),
    ).resolves.toEqual({ items: [] });
    const indexCursors = [
      { gsi1pk: `${pk}#INDEX`, gsi1sk: 'ITEM#000' }, // without the table's key
      { pk, sk: 'ITEM#000', gsi1pk: `${pk}#INDEX`, gsi1sk: 'OTHER#000' },
      { pk: 'x'.repeat(2100), sk: 'ITEM#000', gsi1pk: `${pk}#INDEX`, gsi1sk: 'ITEM#000' },
      { pk: '', sk: 'ITEM#000', gsi1pk: `${pk}#INDEX`, gsi1sk: 'ITEM#000' }, // an empty table key
      { pk, other: 'ITEM#000', gsi1pk: `${pk}#INDEX`, gsi1sk: 'ITEM#000' }, // four names, one not a key
    ];
    for (const cursor of indexCursors) {
      await expect(
        queryPrefix(db, index, { limit: 1, cursor: encode(cursor) }, n),
        JSON.stringify(cursor).slice(0, 80),
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    }
  });
});

describe('pages of an entity', () => {
  it('refuse a cursor of another partition: an endpoint’s deliveries', async () => {
    const cursor = Buffer.from(JSON.stringify(keys.webhookDelivery(randomUUID(), randomUUID()))).toString(
      'base64url',
    );
    await expect(deliveryPage(db, randomUUID(), { limit: 10, cursor })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
