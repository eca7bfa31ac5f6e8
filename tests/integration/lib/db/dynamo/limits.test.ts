import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDatabase } from '../../../../../lib/db/client';
import {
  type AttributeValue,
  GetCommand,
  type Middleware,
  marshallItem,
  PutCommand,
} from '../../../../../lib/db/dynamo';
import { toJson } from '../../../../../lib/db/dynamo/marshalling';
import { db } from '../../../../support/fixtures';

/**
 * `marshallItem` refuses exactly what DynamoDB refuses. Each boundary is sent twice: through
 * marshallItem, and as a raw request body (a middleware on the real client replaces the body, so our
 * checks are bypassed) that DynamoDB Local judges itself.
 */
const { tableName: TableName } = db;
let rawBody = '';
const replaceBody: Middleware = (next) => (request) => next({ ...request, body: rawBody });
const raw = createDatabase({
  tableName: TableName,
  region: 'eu-central-1',
  endpoint: process.env.DYNAMODB_ENDPOINT,
  middleware: replaceBody,
  maxAttempts: 1,
});

/** DynamoDB Local's verdict on an item in wire form: 'stored' or the exception's name. */
const dynamoAccepts = async (attributes: Record<string, AttributeValue>) => {
  rawBody = toJson({ TableName, Item: attributes });
  try {
    await raw.client.send(new PutCommand({ TableName, Item: {} }));
    return true;
  } catch (error) {
    expect((error as Error).name).toBe('ValidationException');
    return false;
  }
};

const oursAccepts = (item: Record<string, unknown>) => {
  try {
    marshallItem(item);
    return true;
  } catch (error) {
    expect((error as Error).name).toBe('UnstorableValueError');
    return false;
  }
};

const key = () => ({ pk: `LIMIT#${randomUUID()}`, sk: 'X' });
const wireKey = (k: { pk: string; sk: string }) => ({ pk: { S: k.pk }, sk: { S: k.sk } });

describe('marshallItem agrees with DynamoDB on what can be stored', () => {
  it('numbers: 38 significant digits, magnitude 1E-130 to 9.99E+125', async () => {
    const cases = [
      '1e-130',
      '1e-131',
      '-1e-130',
      '-1e-131',
      `${'9'.repeat(38)}${'0'.repeat(88)}`, // 9.99…E+125
      `1${'0'.repeat(126)}`, // 1E+126
      '12345678901234567890123456789012345678',
      '123456789012345678901234567890123456789',
      `1${'0'.repeat(60)}`,
      '0.000000000000000000000000000000000000000000001',
    ];
    for (const n of cases) {
      const k = key();
      const ours = oursAccepts({ ...k, n: n.includes('e') || n.includes('.') ? Number(n) : BigInt(n) });
      expect(ours, n).toBe(await dynamoAccepts({ ...wireKey(k), n: { N: n } }));
    }
  });

  it('nesting: a map or list inside at most 30 others', async () => {
    for (const levels of [30, 31, 32]) {
      for (const kind of ['M', 'L'] as const) {
        let native: unknown = kind === 'M' ? {} : [];
        let wire: AttributeValue = kind === 'M' ? { M: {} } : { L: [] };
        for (let i = 0; i < levels; i++) {
          native = kind === 'M' ? { a: native } : [native];
          wire = kind === 'M' ? { M: { a: wire } } : { L: [wire] };
        }
        const k = key();
        expect(oursAccepts({ ...k, deep: native }), `${kind} ${levels}`).toBe(
          await dynamoAccepts({ ...wireKey(k), deep: wire }),
        );
      }
    }
  });

  it('item size: 400 KB counted as DynamoDB counts names, strings, numbers, lists and maps', async () => {
    const extras: [string, unknown, AttributeValue][] = [
      ['string', 'abc', { S: 'abc' }],
      ['number 1.5', 1.5, { N: '1.5' }],
      ['number 12345', 12345, { N: '12345' }],
      ['number 0.001', 0.001, { N: '0.001' }],
      ['number 0', 0, { N: '0' }],
      ['binary', Uint8Array.from([1, 2, 3]), { B: Uint8Array.from([1, 2, 3]) }],
      ['boolean', false, { BOOL: false }],
      ['list', [null, true], { L: [{ NULL: true }, { BOOL: true }] }],
      ['map', { ab: { c: 'xy' } }, { M: { ab: { M: { c: { S: 'xy' } } } } }],
      ['string set', new Set(['a', 'bb']), { SS: ['a', 'bb'] }],
    ];
    for (const [label, native, wire] of extras) {
      const k = key();
      // Fill the item up to exactly 400 KB by our count, then one byte more.
      const withoutFill = marshallItem({ ...k, extra: native, fill: '' }).bytes;
      for (const over of [0, 1]) {
        const fill = 'x'.repeat(400 * 1024 - withoutFill + over);
        expect(oursAccepts({ ...k, extra: native, fill }), `${label} +${over}`).toBe(over === 0);
        expect(
          await dynamoAccepts({ ...wireKey(k), extra: wire, fill: { S: fill } }),
          `${label} +${over}`,
        ).toBe(over === 0);
      }
    }
  });

  it('what DynamoDB Local stored at the boundary reads back unchanged', async () => {
    const k = key();
    const item = { ...k, max: BigInt(`${'9'.repeat(38)}${'0'.repeat(88)}`), min: 1e-130 };
    await db.client.send(new PutCommand({ TableName, Item: item }));
    expect((await db.client.send(new GetCommand({ TableName, Key: k }))).Item).toEqual(item);
  });
});
