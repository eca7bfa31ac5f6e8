// The two of zod's core a read needs at run time, by name: `z.core` as a whole would bundle all of it,
// its locales included (about 370 KB more in every function).

import * as z from 'zod/mini';
import { $ZodError, $ZodObjectJIT } from 'zod/v4/core';
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
 * of its key template (`inKey('pk', keys.apiKey)`: the hash after `APIKEY#`), and written by the
 * entity's `key` alone.
 */
export const inKey = (
  attribute: keyof ItemKey,
  template: (...blanks: string[]) => ItemKey,
): FieldStorage<string> => {
  const prefix = template('', '', '')[attribute];
  return { read: (item) => keyPart(item[attribute], prefix), write: () => ({}) };
};

type Shape = z.core.$ZodShape;

/**
 * The schema compiled, as zod's own object parser compiles it (`$ZodObjectJIT`, what classic zod's
 * `z.object` builds; zod/mini leaves it to the caller), without the fields `leave` names: the same
 * definition, so the same checks and output, at about half the parse time. Every push parses its key
 * and its KPIs, a batch of 50 a hundred items.
 */
function compiled<S extends Shape, L extends keyof S>(
  schema: z.ZodMiniObject<S>,
  leave: readonly L[],
): z.core.$ZodType<Omit<z.output<z.ZodMiniObject<S>>, L>>;
function compiled(schema: z.ZodMiniObject, leave: readonly string[]): z.core.$ZodType {
  const shape = Object.fromEntries(Object.entries(schema.shape).filter(([field]) => !leave.includes(field)));
  return new $ZodObjectJIT({ ...schema._zod.def, shape });
}

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
  /** A stored item read back, parsed; `MalformedItem` when it does not match the declaration. */
  fromItem(item: StoredItem): Out;
}

/** Where a stored form is checked, its issues are named after the field they belong to. */
const decodeField = (field: string, codec: z.core.$ZodType, raw: unknown) => {
  const decoded = z.safeParse(codec, raw);
  if (decoded.success) return decoded.data;
  throw new $ZodError(decoded.error.issues.map((issue) => ({ ...issue, path: [field, ...issue.path] })));
};

/**
 * Declares an entity. The declaration is written as a function returning it, and each call marked
 * `/* @__PURE__ *\/`: esbuild then drops the declarations a function's code does not use (their zod
 * schemas and key templates with them), as lib/runtime.ts's exports are dropped, where a declaration
 * given as an object would stay in every bundle that imports its module.
 */
export const defineEntity = <S extends Shape, H extends keyof S & string = never>(
  declare: () => EntitySpec<S, H>,
): Entity<z.output<z.ZodMiniObject<S>>, Omit<z.output<z.ZodMiniObject<S>>, H>> => {
  const spec = declare();
  const stored: Partial<Record<string, FieldStorage<unknown>>> = spec.stored ?? {};
  const shape: Shape = spec.schema.shape;
  const fields = Object.keys(shape);
  const nullable = new Set(
    Object.entries(shape).flatMap(([field, schema]) => (z.safeParse(schema, null).success ? [field] : [])),
  );
  const attributeOf = (field: string) => stored[field]?.attribute ?? field;

  // How a read takes each field from the item and a write stores it, decided once per entity, as data
  // that one loop reads: under its own name or another, in another form (a codec), assembled otherwise
  // (`read`/`write`), and what an absent attribute means (null for a nullable field, or its default).
  const plans = fields.map((field) => {
    const storage = stored[field];
    return {
      field,
      attribute: attributeOf(field),
      absent: storage?.default !== undefined ? storage.default : nullable.has(field) ? null : undefined,
      codec: storage?.codec,
      read: storage?.read,
      write: storage?.write,
    };
  });
  const hidden: readonly H[] = spec.hidden ?? [];
  // A hidden field is checked on its own, so that what a read returns is built without it.
  const parser = compiled(spec.schema, hidden);
  const hiddenParser =
    hidden.length > 0
      ? compiled(
          spec.schema,
          fields.filter((field) => !hidden.some((h) => h === field)),
        )
      : undefined;
  const types = new Set<unknown>([spec.type, ...(spec.formerTypes ?? [])]);

  /** Writes a value's fields into `item` as they are stored; a null or absent field is left out. */
  const store = (value: z.output<z.ZodMiniObject<S>>, item: StoredItem): StoredItem => {
    for (const plan of plans) {
      const fieldValue: unknown = Reflect.get(value, plan.field);
      if (plan.write) Object.assign(item, plan.write(fieldValue));
      else if (fieldValue !== null && fieldValue !== undefined) {
        item[plan.attribute] = plan.codec ? z.encode(plan.codec, fieldValue) : fieldValue;
      }
    }
    return item;
  };

  return {
    type: spec.type,
    attributes: plans.filter((plan) => !plan.write).map((plan) => plan.attribute),
    toItem: (value) => store(value, { ...spec.key(value), type: spec.type }),
    fromItem: (item) => {
      if (item.type !== undefined && !types.has(item.type)) {
        throw new MalformedItem(spec.type, item, [
          { path: ['type'], message: `expected "${spec.type}", found ${JSON.stringify(item.type)}` },
        ]);
      }
      const prepared: StoredItem = {};
      try {
        for (const plan of plans) {
          const raw = plan.read ? plan.read(item) : item[plan.attribute];
          // A null stored as DynamoDB's NULL is parsed as null, which only a nullable field takes.
          prepared[plan.field] =
            raw === undefined
              ? plan.absent
              : plan.codec && raw !== null
                ? decodeField(plan.field, plan.codec, raw)
                : raw;
        }
      } catch (error) {
        if (error instanceof $ZodError) throw new MalformedItem(spec.type, item, error.issues, error);
        throw error;
      }
      const parsed = z.safeParse(parser, prepared);
      const checked = hiddenParser ? z.safeParse(hiddenParser, prepared) : undefined;
      if (parsed.success && checked?.success !== false) return parsed.data;
      const issues = [...(parsed.error?.issues ?? []), ...(checked?.error?.issues ?? [])];
      // Stryker disable next-line OptionalChaining: without a hidden parse the field parse failed, and ?? stops there
      throw new MalformedItem(spec.type, item, issues, parsed.error ?? checked?.error);
    },
  };
};

const INDEX_KEYS = ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'] as const;

/**
 * The UpdateItem of an existing item that makes it a value's whole item, as `toItem` writes it: every
 * attribute set, and every attribute of the entity (and index key) the value leaves absent removed, so
 * that its index entries follow the value. Attributes that are not the entity's (what another writer
 * keeps on the item) stay, unless `remove` names them; `set` adds attributes of the writer's own.
 */
export const entityUpdate = <In>(
  entity: Entity<In, unknown>,
  value: In,
  { set = {}, remove = [] }: { set?: StoredItem; remove?: readonly string[] } = {},
) => {
  const { pk: _pk, sk: _sk, ...fields } = { ...entity.toItem(value), ...set };
  const names = Object.keys(fields);
  const removed = [...new Set([...entity.attributes, ...INDEX_KEYS, ...remove])].filter(
    (name) => !(name in fields),
  );
  return {
    UpdateExpression:
      `SET ${names.map((_, i) => `#s${i} = :s${i}`).join(', ')}` +
      (removed.length > 0 ? ` REMOVE ${removed.map((_, i) => `#r${i}`).join(', ')}` : ''),
    ExpressionAttributeNames: {
      ...Object.fromEntries(names.map((name, i) => [`#s${i}`, name])),
      ...Object.fromEntries(removed.map((name, i) => [`#r${i}`, name])),
    },
    ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:s${i}`, fields[name]])),
  };
};
