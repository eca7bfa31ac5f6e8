import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineEntity } from '../../../../lib/db/entity';
import { MalformedItem } from '../../../../lib/db/errors';

/** A made-up entity that uses every part of a declaration. */
const gadgets = /* @__PURE__ */ defineEntity(() => ({
  type: 'GADGET',
  schema: z.object({
    id: z.string(),
    kind: z.enum(['small', 'large']),
    size: z.int(),
    note: z.nullable(z.string()),
    tags: z.nullable(z.array(z.string())),
    parts: z.object({ a: z.int(), b: z.int() }),
    day: z.iso.date(),
    owner: z.string(),
  }),
  key: (g) => ({ pk: `GADGET#${g.id}`, sk: `DAY#${g.day}` }),
  stored: {
    kind: { attribute: 'gadgetKind' },
    size: { default: 1 },
    tags: {
      attribute: 'tagList',
      codec: z.codec(z.string(), z.array(z.string()), {
        decode: (text) => text.split(','),
        encode: (tags) => tags.join(','),
      }),
    },
    parts: {
      read: (item) => ({ a: item.part_a ?? 0, b: item.part_b ?? 0 }),
      write: (parts) => ({ part_a: parts.a, part_b: parts.b }),
    },
    day: { read: (item) => String(item.sk).slice('DAY#'.length), write: () => ({}) },
  },
  hidden: ['owner'],
}));

const gadget = {
  id: 'g1',
  kind: 'large' as const,
  size: 3,
  note: null,
  tags: ['x', 'y'],
  parts: { a: 1, b: 2 },
  day: '2026-11-27',
  owner: 'o1',
};

const malformed = (item: Record<string, unknown>) => {
  try {
    gadgets.fromItem(item);
  } catch (error) {
    return error;
  }
  throw new Error('read as valid');
};

describe('an entity declaration', () => {
  it('writes a value as its item: keys, type, renamed and encoded attributes, nulls left out', () => {
    expect(gadgets.toItem(gadget)).toEqual({
      pk: 'GADGET#g1',
      sk: 'DAY#2026-11-27',
      type: 'GADGET',
      id: 'g1',
      gadgetKind: 'large',
      size: 3,
      tagList: 'x,y',
      part_a: 1,
      part_b: 2,
      owner: 'o1',
    });
    expect(gadgets.attributes).toEqual(['id', 'gadgetKind', 'size', 'note', 'tagList', 'owner']);
  });

  it('reads its item back as the value, without its hidden fields', () => {
    const { owner: _owner, ...shown } = gadget;
    expect(gadgets.fromItem(gadgets.toItem(gadget))).toEqual(shown);
  });

  it('reads an absent nullable attribute as null, and an absent field with a default as the default', () => {
    const { size: _size, tagList: _tags, ...older } = gadgets.toItem(gadget);
    expect(gadgets.fromItem(older)).toMatchObject({ size: 1, tags: null, note: null });
  });

  it('reads a nullable attribute stored as NULL as null, in its stored form or not', () => {
    expect(gadgets.fromItem({ ...gadgets.toItem(gadget), note: null, tagList: null })).toMatchObject({
      note: null,
      tags: null,
    });
    expect(malformed({ ...gadgets.toItem(gadget), size: null })).toBeInstanceOf(MalformedItem);
  });

  it('refuses an item of another type, naming the entity and the id', () => {
    const error = malformed({ ...gadgets.toItem(gadget), type: 'WIDGET' });
    expect(error).toBeInstanceOf(MalformedItem);
    expect(String(error)).toBe(
      'MalformedItem: Stored GADGET item g1 is malformed: type: expected "GADGET", found "WIDGET"',
    );
  });

  it('refuses a malformed item naming each attribute that does not match, with the parse as its cause', () => {
    const error = malformed({ ...gadgets.toItem(gadget), gadgetKind: 'huge', owner: undefined });
    expect(error).toBeInstanceOf(MalformedItem);
    expect((error as Error).message).toMatch(/^Stored GADGET item g1 is malformed: kind: .+; owner: .+$/);
    expect((error as Error).cause).toBeInstanceOf(z.core.$ZodError);
  });

  it('refuses an item whose hidden field alone does not match, naming only that field', () => {
    const error = malformed({ ...gadgets.toItem(gadget), owner: 42 });
    expect((error as Error).message).toMatch(/^Stored GADGET item g1 is malformed: owner: [^;]+$/);
    expect((error as Error).cause).toBeInstanceOf(z.core.$ZodError);
  });

  it('lets an error of a field’s own reading that is no parse through as it is', () => {
    const broken = defineEntity(() => ({
      type: 'BROKEN',
      schema: z.object({ id: z.string() }),
      key: (b) => ({ pk: `BROKEN#${b.id}`, sk: 'B' }),
      stored: {
        id: {
          read: () => {
            throw new RangeError('a defect');
          },
        },
      },
    }));
    expect(() => broken.fromItem({ pk: 'BROKEN#1', sk: 'B', type: 'BROKEN' })).toThrow(RangeError);
  });

  it('names an item without an id by its entity, and a mismatch of the whole item as "(item)"', () => {
    expect(new MalformedItem('GADGET', {}, [{ path: [], message: 'expected an object' }]).message).toBe(
      'Stored GADGET item is malformed: (item): expected an object',
    );
    expect(
      new MalformedItem('GADGET', { id: 7 }, [{ path: ['parts', 0], message: 'expected a number' }]).message,
    ).toBe('Stored GADGET item is malformed: parts.0: expected a number');
  });

  it('refuses a stored form its codec does not take, naming the field', () => {
    const error = malformed({ ...gadgets.toItem(gadget), tagList: 7 });
    expect(error).toBeInstanceOf(MalformedItem);
    expect((error as Error).message).toBe('Stored GADGET item g1 is malformed: tags: Invalid input');
    // The codec's own issue (its stored form is a string), not the field's (an array).
    expect(((error as Error).cause as z.core.$ZodError).issues).toEqual([
      expect.objectContaining({ path: ['tags'], code: 'invalid_type', expected: 'string' }),
    ]);
  });

  it('never puts a value into its message: an item may hold a hash or a sealed secret', () => {
    const error = malformed({
      ...gadgets.toItem(gadget),
      owner: 42,
      note: 'sealed-secret-text',
      size: 'sealed-secret-text',
    });
    expect((error as Error).message).not.toContain('sealed-secret-text');
  });
});
