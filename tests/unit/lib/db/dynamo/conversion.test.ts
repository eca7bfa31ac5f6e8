import { convertToAttr, convertToNative } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { marshallValue, unmarshallValue } from '../../../../../lib/db/dynamo';

/**
 * lib/db/dynamo converts values by util-dynamodb's rules without the package (issue 11): the package
 * is the oracle here, on generated values and on every kind of value the rules single out.
 */
const OPTIONS = { removeUndefinedValues: true, convertTopLevelContainer: true } as const;

const oracle = (value: unknown) => {
  try {
    return { ok: true, value: convertToAttr(value, OPTIONS) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
};

const ours = (value: unknown) => {
  try {
    return { ok: true, value: marshallValue(value) };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
};

/** Values DynamoDB can hold, the shapes the service stores (numbers within its range). */
const storable = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.boolean(),
    fc.constant(null),
    fc.integer(),
    fc
      .double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 })
      .filter((x) => x === 0 || Math.abs(x) > 1e-100),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('value conversion, against @aws-sdk/util-dynamodb', () => {
  it('converts generated values the same way, both directions', () => {
    fc.assert(
      fc.property(storable, (value) => {
        const converted = marshallValue(value);
        expect(converted).toEqual(convertToAttr(value, OPTIONS));
        expect(unmarshallValue(converted)).toEqual(convertToNative(converted as never));
      }),
      { numRuns: 300, seed: 20261122 },
    );
  });

  it('sets, maps, binaries, bigints, boxed values and undefined members', () => {
    const values: unknown[] = [
      new Set(['a', 'b']),
      new Set([1, 2.5]),
      new Set([1n, 2n]),
      new Set([new Uint8Array([1]), new Uint8Array([2])]),
      new Set(['a', undefined]),
      new Map<string, unknown>([
        ['a', 1],
        ['b', undefined],
      ]),
      { a: undefined, b: () => 1, c: [1, undefined, 'x'] },
      new Uint8Array([1, 2, 3]),
      Buffer.from('hi'),
      123n,
      '',
      Object.create(null),
      Object.assign(Object.create(null), { a: 1 }),
      new String('boxed'),
      new Number(2.5),
      new Boolean(false),
    ];
    for (const [i, value] of values.entries()) expect(ours(value), `values[${i}]`).toEqual(oracle(value));
  });

  it('refuses what util-dynamodb refuses, with its message', () => {
    class Point {
      x = 1;
    }
    for (const value of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      2 ** 53,
      -(2 ** 53),
      new Set(),
      new Set([true]),
      new Point(),
      undefined,
      Symbol('s'),
    ]) {
      const expected = oracle(value);
      expect(expected.ok, typeof value).toBe(false);
      expect(ours(value).ok, typeof value).toBe(false);
      expect((ours(value) as { message: string }).message).toContain(expected.message as string);
    }
  });

  it('reads numbers beyond 2^53 as BigInt and every stored type back', () => {
    const stored = [
      { N: '9007199254740993' },
      { N: '-9007199254740993' },
      { N: '1.5' },
      { NS: ['1', '9007199254740993'] },
      { SS: ['a'] },
      { BS: [new Uint8Array([1])] },
      { BOOL: false },
      { NULL: true },
      { L: [{ S: 'x' }, { M: { a: { N: '1' } } }] },
    ];
    for (const value of stored)
      expect(unmarshallValue(value as never)).toEqual(convertToNative(value as never));
  });
});
