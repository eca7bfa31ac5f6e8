import * as z from 'zod/mini';
import { MalformedItem } from './errors';
import { type ItemKey, keyPart } from './keys';

/**
 * Each stored entity is declared once, as ElectroDB declares one: its zod schema (the fields as the
 * service uses them, from lib/domain/ where clients see them), the key templates of its item (from
 * ./keys.ts), and how a field is stored when not as itself under its own name. From that declaration:
 *
 * - `toItem`: the item of a value, its keys and its `type` included;
 * - `fromItem`: a stored item read back, parsed by the schema. A malformed item throws `MalformedItem`,
 *   which the error middleware answers as a 500 with the cause logged: never a wrong value.
 *
 * Two rules hold for every entity without being declared: a null field is stored absent (and an absent
 * attribute of a nullable field reads as null), and an item's `type`, when it has one, must be its
 * entity's (or one it had in an earlier version). A field added after items were written declares its
 * `default`: what an older item means.
 */

/** An item's key attributes: the table's, and those of the indexes it is in. */
export type ItemKeys = ItemKey & {
  gsi1pk?: string;
  gsi1sk?: string;
  gsi2pk?: string;
  gsi2sk?: string;
};

export type StoredItem = Record<string, unknown>;

/** How one field is stored, where it is not stored as itself under its own name. */
export interface FieldStorage<V> {
  /** The attribute that holds it, when its name differs from the field's. */
  attribute?: string;
  /** Stored in another form: a codec from the stored form to the field's (`decode` checks the stored form). */
  codec?: z.core.$ZodType<V>;
  /**
   * Assembled from the item otherwise: from several attributes, or from the item's key. `read` gives
   * the field's raw value (then parsed by its schema); `write` the attributes that hold it (none when
   * the key holds it).
   */
  read?(item: StoredItem): unknown;
  write?(value: V): StoredItem;
  /** What an item written before the field existed means: its value when the attribute is absent. */
  default?: V;
}

/**
 * A field that only the item's key holds: read back from that key attribute, after the constant part
 * of its template (e.g. `keys.apiKey('').pk`), and written by the entity's `key` alone.
 */
export const inKey = (attribute: keyof ItemKeys, prefix: string): FieldStorage<string> => ({
  read: (item) => keyPart(item[attribute], prefix),
  write: () => ({}),
});

type Shape = z.core.$ZodShape;

export interface EntitySpec<S extends Shape, H extends keyof S> {
  /** The `type` attribute of its items. */
  type: string;
  /** The `type` its items had when earlier versions wrote them, still read as this entity's. */
  formerTypes?: readonly string[];
  schema: z.ZodMiniObject<S>;
  /** The item's keys, built by ./keys.ts from the value. */
  key: (value: z.output<z.ZodMiniObject<S>>) => ItemKeys;
  stored?: { [F in keyof S]?: FieldStorage<z.output<S[F]>> };
  /**
   * Fields written and checked on read, but left out of what reads return: attributes that only say
   * where an item belongs (a measurement's tenant), so the values never carry them to a response.
   */
  hidden?: readonly H[];
}

export interface Entity<In, Out = In> {
  readonly type: string;
  /** The attribute names of its fields, as stored (an update removes those a value leaves absent). */
  readonly attributes: readonly string[];
  /** The item of a value: its keys, its `type` and its fields as stored. */
  toItem(value: In): StoredItem;
  /** The stored attributes of a value, without keys and `type`: what an update sets. */
  attributesOf(value: In): StoredItem;
  /** A stored item read back, parsed; `MalformedItem` when it does not match the declaration. */
  fromItem(item: StoredItem): Out;
}

/** Where a stored form is checked, its issues are named after the field they belong to. */
const decodeField = (field: string, codec: z.core.$ZodType, raw: unknown) => {
  const decoded = z.safeParse(codec, raw);
  if (decoded.success) return decoded.data;
  throw new z.core.$ZodError(
    decoded.error.issues.map((issue) => ({ ...issue, path: [field, ...issue.path] })),
  );
};

export const defineEntity = <S extends Shape, H extends keyof S & string = never>(
  spec: EntitySpec<S, H>,
): Entity<z.output<z.ZodMiniObject<S>>, Omit<z.output<z.ZodMiniObject<S>>, H>> => {
  const stored: Partial<Record<string, FieldStorage<unknown>>> = spec.stored ?? {};
  const shape: Shape = spec.schema.shape;
  const fields = Object.keys(shape);
  const nullable = new Set(
    Object.entries(shape).flatMap(([field, schema]) => (z.safeParse(schema, null).success ? [field] : [])),
  );
  const attributeOf = (field: string) => stored[field]?.attribute ?? field;

  // What a read adjusts before the parse, decided once per entity: fields renamed, stored in another
  // form, assembled otherwise, or absent (null, or their default). Every other field is parsed as stored.
  const readers = fields.flatMap((field): [string, (item: StoredItem) => unknown][] => {
    const storage = stored[field];
    const read = storage?.read;
    if (read) return [[field, (item) => read(item)]];
    const attribute = attributeOf(field);
    const absent = storage?.default !== undefined ? storage.default : nullable.has(field) ? null : undefined;
    const codec = storage?.codec;
    if (!codec && attribute === field && absent === undefined) return [];
    return [
      [
        field,
        (item) => {
          const raw = item[attribute];
          if (raw === undefined) return absent;
          // A null stored as DynamoDB's NULL is parsed as null, which only a nullable field takes.
          return codec && raw !== null ? decodeField(field, codec, raw) : raw;
        },
      ],
    ];
  });
  const hidden: readonly string[] = spec.hidden ?? [];
  const types = new Set<unknown>([spec.type, ...(spec.formerTypes ?? [])]);

  const attributesOf = (value: z.output<z.ZodMiniObject<S>>): StoredItem => {
    const attributes: StoredItem = {};
    for (const field of fields) {
      const fieldValue: unknown = Reflect.get(value, field);
      const storage = stored[field];
      if (storage?.write) Object.assign(attributes, storage.write(fieldValue));
      else if (fieldValue !== null && fieldValue !== undefined) {
        attributes[attributeOf(field)] = storage?.codec ? z.encode(storage.codec, fieldValue) : fieldValue;
      }
    }
    return attributes;
  };

  return {
    type: spec.type,
    attributes: fields.filter((field) => !stored[field]?.write).map(attributeOf),
    attributesOf,
    toItem: (value) => ({ ...spec.key(value), type: spec.type, ...attributesOf(value) }),
    fromItem: (item) => {
      if (item.type !== undefined && !types.has(item.type)) {
        throw new MalformedItem(spec.type, item, [
          { path: ['type'], message: `expected "${spec.type}", found ${JSON.stringify(item.type)}` },
        ]);
      }
      const prepared: StoredItem = { ...item };
      try {
        for (const [field, read] of readers) prepared[field] = read(item);
      } catch (error) {
        if (error instanceof z.core.$ZodError) throw new MalformedItem(spec.type, item, error.issues, error);
        throw error;
      }
      const parsed = z.safeParse(spec.schema, prepared);
      if (!parsed.success) throw new MalformedItem(spec.type, item, parsed.error.issues, parsed.error);
      const value = parsed.data;
      for (const field of hidden) Reflect.deleteProperty(value, field);
      return value;
    },
  };
};
