import { UnstorableValueError } from './errors';

/** DynamoDB's wire form of one value (the JSON protocol's AttributeValue). */
export type AttributeValue =
  | { S: string }
  | { N: string }
  | { B: Uint8Array }
  | { SS: string[] }
  | { NS: string[] }
  | { BS: Uint8Array[] }
  | { M: Record<string, AttributeValue> }
  | { L: AttributeValue[] }
  | { NULL: true }
  | { BOOL: boolean };

/** An item or key in native JavaScript values, as the DocumentClient takes and gives them. */
export type NativeItem = Record<string, unknown>;

const MARSHALLED: unique symbol = Symbol('dynamo.marshalled');

/**
 * An item already converted to its stored form by `marshallItem`: commands send it as is. Converting
 * every item of a batch before the first write means no error that depends on the data can happen
 * between two writes of the batch.
 */
export interface MarshalledItem {
  readonly [MARSHALLED]: true;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** DynamoDB's item size (attribute names + values, per the developer guide's rules), in bytes. */
  readonly bytes: number;
}

export const isMarshalledItem = (value: unknown): value is MarshalledItem =>
  typeof value === 'object' && value !== null && MARSHALLED in value;

/**
 * Limits of the developer guide ("Quotas", "Data types"), with the exact boundaries DynamoDB Local
 * enforces (tests/integration/lib/db/dynamo/limits.test.ts sends raw requests across each one): items
 * up to 400 KB; numbers of up to 38 significant digits with magnitude 1E-130 to 9.99E+125; a map or
 * list inside at most 30 others (the guide's "32 levels" count the item and the attribute too).
 */
const MAX_ITEM_BYTES = 400 * 1024;
const MAX_DIGITS = 38;
const MIN_EXPONENT = -130;
const MAX_EXPONENT = 125;
const MAX_ENCLOSING_DOCUMENTS = 30;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

const NUMBER = /^[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Size of a number as DynamoDB counts it, after checking its precision and range. The guide says
 * "(significant digits / 2) + 1"; exactly, it is one byte per base-100 digit (digit pairs aligned on
 * the decimal point, so 1.5 takes two) plus one: 12345 → 4 bytes, 1.5 → 3, 0.001 → 2.
 */
const numberBytes = (text: string, path: string): number => {
  const match = NUMBER.exec(text);
  // Stryker disable next-line all: the text is a finite number's or a bigint's toString(), which always matches
  if (!match) throw new UnstorableValueError(path, `"${text}" is not a number`);
  // Stryker disable next-line StringLiteral: (\d*) takes part in every match, so int is never undefined
  const [, int = '', fraction = '', exponent = '0'] = match;
  const digits = int + fraction;
  const first = digits.search(/[1-9]/);
  if (first === -1) return 1; // zero
  const significant = digits.slice(first).replace(/0+$/, '').length;
  if (significant > MAX_DIGITS) {
    throw new UnstorableValueError(path, `${text} has more than ${MAX_DIGITS} significant digits`);
  }
  // Power of ten of the first and of the last significant digit.
  const highest = int.length - 1 - first + Number(exponent);
  if (highest > MAX_EXPONENT || highest < MIN_EXPONENT) {
    throw new UnstorableValueError(path, `${text} is outside DynamoDB's number range (1E-130 to 9.99E+125)`);
  }
  const lowest = highest - significant + 1;
  return Math.floor(highest / 2) - Math.floor(lowest / 2) + 2;
};

const binaryBytes = (value: unknown, path: string): number => {
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value.byteLength;
  throw new UnstorableValueError(path, 'binary values must be a Uint8Array, Buffer or ArrayBuffer');
};

const noDuplicates = (values: string[], path: string) => {
  if (new Set(values).size !== values.length)
    throw new UnstorableValueError(path, 'a set holds a value twice');
};

/**
 * Checks what the conversion leaves to the server (number range and precision, nesting,
 * duplicate set members) and returns the value's size by the developer guide's rules: strings and
 * binaries their length, numbers as above, null and booleans 1, lists and maps 3 plus 1 per element
 * plus their names and elements. `depth` is the number of maps and lists around the value.
 */
const checkedBytes = (value: AttributeValue, path: string, depth: number): number => {
  if ('S' in value) return utf8(value.S);
  if ('N' in value) return numberBytes(value.N, path);
  if ('B' in value) return binaryBytes(value.B, path);
  if ('BOOL' in value || 'NULL' in value) return 1;
  if ('SS' in value) return value.SS.reduce((sum, s) => sum + utf8(s), 0);
  if ('NS' in value) {
    noDuplicates(value.NS, path);
    return value.NS.reduce((sum, n) => sum + numberBytes(n, path), 0);
  }
  if ('BS' in value) {
    noDuplicates(
      value.BS.map((b) => Buffer.from(b).toString('base64')),
      path,
    );
    return value.BS.reduce((sum, b) => sum + binaryBytes(b, path), 0);
  }
  if (depth > MAX_ENCLOSING_DOCUMENTS) {
    throw new UnstorableValueError(
      path,
      `a map or list may sit inside at most ${MAX_ENCLOSING_DOCUMENTS} others (DynamoDB's 32 levels)`,
    );
  }
  if ('L' in value) {
    return value.L.reduce((sum, v, i) => sum + 1 + checkedBytes(v, `${path}[${i}]`, depth + 1), 3);
  }
  return Object.entries(value.M).reduce(
    (sum, [name, v]) => sum + 1 + utf8(name) + checkedBytes(v, `${path}.${name}`, depth + 1),
    3,
  );
};

/*
 * Native value ⇄ AttributeValue, as `@aws-sdk/util-dynamodb` converts them with the options the
 * service has always used (`removeUndefinedValues`, `convertTopLevelContainer`; numbers beyond 2^53 are
 * refused on the way in and read back as BigInt). A port of its rules rather than the package: its
 * 4.8 KB were in every function (issue 11's 100 KB budget). tests/unit/lib/db/dynamo/marshalling.test.ts
 * compares both on every kind of value.
 */
const BINARY_TYPES: ReadonlySet<string | undefined> = new Set([
  'ArrayBuffer',
  'Blob',
  'Buffer',
  'DataView',
  'File',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
]);

const typeOf = (value: unknown): string | undefined =>
  (value as { constructor?: { name?: string } } | null | undefined)?.constructor?.name;

const isBinary = (value: unknown) => BINARY_TYPES.has(typeOf(value));

const numberAttr = (value: number | bigint): { N: string } => {
  const text = value.toString();
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`Special numeric value ${text} is not allowed`);
    if (value > Number.MAX_SAFE_INTEGER || value < Number.MIN_SAFE_INTEGER) {
      // Stryker disable next-line EqualityOperator: 0 is in range, so value is never 0 here
      const side = value > 0 ? 'greater than Number.MAX_SAFE_INTEGER' : 'lesser than Number.MIN_SAFE_INTEGER';
      throw new Error(`Number ${text} is ${side}. Use NumberValue from @aws-sdk/lib-dynamodb.`);
    }
  }
  return { N: text };
};

const mapAttr = (entries: Iterable<[string, unknown]>): AttributeValue => {
  const M: Record<string, AttributeValue> = {};
  for (const [name, value] of entries) {
    if (value !== undefined && typeof value !== 'function') M[name] = convertToAttr(value);
  }
  return { M };
};

const setAttr = (set: Set<unknown>): AttributeValue => {
  const values = [...set].filter((value) => value !== undefined);
  if (values.length === 0) throw new Error('Pass a non-empty set, or options.convertEmptyValues=true.');
  const [first] = values;
  if (typeof first === 'number' || typeof first === 'bigint') {
    return { NS: values.map((value) => numberAttr(value as number).N) };
  }
  if (typeof first === 'string') return { SS: values.map(String) };
  if (isBinary(first)) return { BS: values as Uint8Array[] };
  throw new Error('Only Number Set (NS), Binary Set (BS) or String Set (SS) are allowed.');
};

const convertToAttr = (value: unknown): AttributeValue => {
  if (value === undefined) {
    throw new Error('Pass options.removeUndefinedValues=true to remove undefined values from map/array/set.');
  }
  if (value === null) return { NULL: true };
  if (Array.isArray(value)) {
    return { L: value.filter((v) => v !== undefined && typeof v !== 'function').map(convertToAttr) };
  }
  const type = typeOf(value);
  if (type === 'Set') return setAttr(value as Set<unknown>);
  if (type === 'Map') return mapAttr(value as Map<string, unknown>);
  // No constructor name: an object without a prototype (null and undefined are handled above).
  if (type === 'Object' || !type) {
    const entries: [string, unknown][] = [];
    for (const name in value as object) entries.push([name, (value as Record<string, unknown>)[name]]);
    return mapAttr(entries);
  }
  if (isBinary(value)) return { B: value as Uint8Array };
  if (typeof value === 'boolean' || type === 'Boolean') return { BOOL: (value as boolean).valueOf() };
  if (typeof value === 'number' || type === 'Number') return numberAttr((value as number).valueOf());
  if (typeof value === 'bigint') return numberAttr(value);
  if (typeof value === 'string' || type === 'String') return { S: String(value) };
  throw new Error(
    `Unsupported type passed: ${value as string}. Pass options.convertClassInstanceToMap=true to marshall typeof object as map attribute.`,
  );
};

const nativeNumber = (text: string): number | bigint => {
  const number = Number(text);
  if ((number > Number.MAX_SAFE_INTEGER || number < Number.MIN_SAFE_INTEGER) && Number.isFinite(number)) {
    try {
      return BigInt(text);
    } catch {
      throw new Error(`${text} can't be converted to BigInt. Set options.wrapNumbers to get string value.`);
    }
  }
  return number;
};

const convertToNative = (value: Record<string, unknown>): unknown => {
  for (const [type, content] of Object.entries(value)) {
    if (content === undefined) continue;
    switch (type) {
      case 'NULL':
        return null;
      case 'BOOL':
        return Boolean(content);
      case 'N':
        return nativeNumber(content as string);
      case 'B':
      case 'S':
        return content;
      case 'L':
        return (content as Record<string, unknown>[]).map(convertToNative);
      case 'M': {
        const map: Record<string, unknown> = {};
        for (const [name, v] of Object.entries(content as Record<string, Record<string, unknown>>)) {
          map[name] = convertToNative(v);
        }
        return map;
      }
      case 'NS':
        return new Set((content as string[]).map(nativeNumber));
      case 'BS':
      case 'SS':
        return new Set(content as unknown[]);
      default:
        throw new Error(`Unsupported type passed: ${type}`);
    }
  }
  throw new Error(`No value defined: ${JSON.stringify(value)}`);
};

const isContainer = (value: unknown): value is object =>
  Array.isArray(value) ||
  value instanceof Map ||
  // Stryker disable next-line ConditionalExpression: locate sees only values that failed to convert, and null converts
  (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype);

/** After the conversion refused a value: the path of the innermost part it refuses. */
const locate = (value: unknown, path: string): string => {
  if (!isContainer(value)) return path;
  const children: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [`${path}[${i}]`, v])
    : [...(value instanceof Map ? value : Object.entries(value))].map(([k, v]) => [`${path}.${k}`, v]);
  for (const [childPath, child] of children) {
    if (child === undefined || typeof child === 'function') continue;
    try {
      convertToAttr(child);
    } catch {
      return locate(child, childPath);
    }
  }
  return path;
};

/** One native value → its AttributeValue, checked. */
export const marshallValue = (value: unknown, path = '(value)'): AttributeValue => {
  let converted: AttributeValue;
  try {
    converted = convertToAttr(value);
  } catch (error) {
    throw new UnstorableValueError(locate(value, path), (error as Error).message);
  }
  checkedBytes(converted, path, 0);
  return converted;
};

/**
 * A map of native values (Key, ExpressionAttributeValues, ...) → AttributeValues. Undefined and
 * function members are left out, as lib-dynamodb does. Returns the map and its size in bytes.
 */
const marshallMap = (
  map: unknown,
  what: string,
): { attributes: Record<string, AttributeValue>; bytes: number } => {
  if (isMarshalledItem(map))
    return { attributes: map.attributes as Record<string, AttributeValue>, bytes: map.bytes };
  if (typeof map !== 'object' || map === null || Array.isArray(map)) {
    throw new UnstorableValueError(what, 'must be an object of attribute names to values');
  }
  const attributes: Record<string, AttributeValue> = {};
  let bytes = 0;
  for (const [name, value] of Object.entries(map)) {
    if (value === undefined || typeof value === 'function') continue;
    let converted: AttributeValue;
    try {
      converted = convertToAttr(value);
    } catch (error) {
      throw new UnstorableValueError(locate(value, name), (error as Error).message);
    }
    bytes += utf8(name) + checkedBytes(converted, name, 0);
    attributes[name] = converted;
  }
  return { attributes, bytes };
};

/**
 * Converts an item to its stored form, or throws `UnstorableValueError` naming the attribute that
 * DynamoDB could not hold. Pass the result wherever a command takes an `Item` (or a `Key`).
 */
export const marshallItem = (item: NativeItem): MarshalledItem => {
  const { attributes, bytes } = marshallMap(item, '(item)');
  if (bytes > MAX_ITEM_BYTES) {
    throw new UnstorableValueError(
      '(item)',
      `the item is ${bytes} bytes; DynamoDB stores at most ${MAX_ITEM_BYTES}`,
    );
  }
  return Object.freeze({ [MARSHALLED]: true as const, attributes: Object.freeze(attributes), bytes });
};

/** Stored form → native values (lib-dynamodb's defaults: numbers as numbers, sets as Sets). */
export const unmarshallValue = (value: AttributeValue): unknown =>
  convertToNative(value as Record<string, unknown>);

const unmarshallMap = (map: Record<string, AttributeValue>): NativeItem => {
  const item: NativeItem = {};
  for (const [name, value] of Object.entries(map)) item[name] = unmarshallValue(value);
  return item;
};

/**
 * Where a command's input and output hold DynamoDB values, in the manner of lib-dynamodb's key
 * nodes: `item` a whole item (size-checked), `map` a map of values, `value` one value, `list` an
 * array of values, `*` every member of an array or object, and an object its named members.
 */
export type Shape = 'item' | 'map' | 'value' | 'list' | { readonly [member: string]: Shape };

type Leaf = (value: unknown, kind: 'item' | 'map' | 'value' | 'list', path: string) => unknown;

/** `Item`, `TransactItems[0].Put.Item`: where a refused value is, as a caller writes it. */
const memberPath = (path: string, name: string) => (path === '' ? name : `${path}.${name}`);

const walk = (data: unknown, shape: Shape, leaf: Leaf, path: string): unknown => {
  if (data === undefined || data === null) return data;
  if (typeof shape === 'string') return leaf(data, shape, path);
  if (typeof data !== 'object') return data;
  const every = shape['*'];
  if (every !== undefined) {
    return Array.isArray(data)
      ? data.map((member, i) => walk(member, every, leaf, `${path}[${i}]`))
      : Object.fromEntries(
          Object.entries(data).map(([name, member]) => [
            name,
            walk(member, every, leaf, memberPath(path, name)),
          ]),
        );
  }
  const result: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  for (const [name, member] of Object.entries(shape)) {
    if (result[name] !== undefined) result[name] = walk(result[name], member, leaf, memberPath(path, name));
  }
  return result;
};

const marshallLeaf: Leaf = (value, kind, path) => {
  switch (kind) {
    case 'value':
      return marshallValue(value, path);
    case 'list':
      return (value as unknown[]).map((member, i) => marshallValue(member, `${path}[${i}]`));
    case 'map':
      return marshallMap(value, path).attributes;
    case 'item': {
      const { attributes, bytes } = marshallMap(value, path);
      if (bytes > MAX_ITEM_BYTES) {
        throw new UnstorableValueError(
          path,
          `the item is ${bytes} bytes; DynamoDB stores at most ${MAX_ITEM_BYTES}`,
        );
      }
      return attributes;
    }
  }
};

const unmarshallLeaf: Leaf = (value, kind) => {
  switch (kind) {
    case 'value':
      return unmarshallValue(value as AttributeValue);
    case 'list':
      return (value as AttributeValue[]).map(unmarshallValue);
    default:
      return unmarshallMap(value as Record<string, AttributeValue>);
  }
};

/** A command input in native values → the request body's structure in AttributeValues. */
export const marshallInput = (input: unknown, shape: Shape): unknown => walk(input, shape, marshallLeaf, '');

/** A response body's structure in AttributeValues → native values. */
export const unmarshallOutput = (output: unknown, shape: Shape): unknown =>
  walk(output, shape, unmarshallLeaf, '');

/**
 * JSON with binaries as base64, as the JSON protocol sends `B` and `BS` members. The replacer looks
 * at the original value (`this[key]`), because JSON.stringify has already turned a Buffer into
 * `{ type, data }` by calling its toJSON when the replacer sees it.
 */
export const toJson = (body: unknown): string =>
  JSON.stringify(body, function (this: Record<string, unknown>, key: string, value: unknown) {
    const original = this[key];
    if (ArrayBuffer.isView(original)) {
      return Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString('base64');
    }
    if (original instanceof ArrayBuffer) return Buffer.from(original).toString('base64');
    return value;
  });

const BINARY_MEMBER = /"BS?":/;

const fromBase64 = (text: string) => Uint8Array.from(Buffer.from(text, 'base64'));

/**
 * Parses a response body, turning `B` and `BS` members back into Uint8Arrays. Only an AttributeValue
 * has a `B` member whose value is a string (or a `BS` whose value is an array of strings): an
 * attribute named "B" maps to an object. The reviver only runs when the text can contain binaries.
 */
export const fromJson = (text: string): Record<string, unknown> =>
  BINARY_MEMBER.test(text)
    ? JSON.parse(text, (key, value) => {
        if (key === 'B' && typeof value === 'string') return fromBase64(value);
        // An attribute named BS holds an AttributeValue object: an array under BS is a binary set.
        if (key === 'BS' && Array.isArray(value)) {
          return value.map(fromBase64);
        }
        return value;
      })
    : JSON.parse(text);
