import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import fc from 'fast-check';
import { expect } from 'vitest';
import { apiEvent, type EventInput, type Handler, type InvokeResult, lambdaContext } from './events';
import { db } from './fixtures';

/**
 * Property-based fuzzing of the HTTP endpoints. `npm test` runs each property with a fixed
 * seed and a count that keeps the suite fast; `npm run fuzz` sets FUZZ_RUNS (≥ 5000) and may set
 * FUZZ_SEED to explore further. A failure prints the seed and the shrunk counterexample.
 */
/** Per-property timeout: generous, so a large `npm run fuzz` on a loaded machine is not cut short. */
export const fuzzTimeout = (defaultRuns: number) =>
  Math.max(600_000, Number(process.env.FUZZ_RUNS ?? defaultRuns) * 500);

export const fuzzOptions = (defaultRuns: number): fc.Parameters<unknown> => ({
  seed: Number(process.env.FUZZ_SEED ?? 20261122),
  numRuns: Number(process.env.FUZZ_RUNS ?? defaultRuns),
  endOnFailure: true,
});

/** Strings that break naive code: lone surrogates, control and zero-width characters, 10 kB. */
const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\ud800', 'a\udfffb', '\u0000', '\u202e', '\ufeff', '__proto__', 'constructor', ' ', ''),
  fc.constant('x'.repeat(10_240)),
  fc.constantFrom('2026-02-30', '2026-13-01', '0000-00-00', '2026-02-29', '99999-01-01', '2026-1-1'),
  fc.constantFrom('42', '-0', '1e400', 'NaN', 'Infinity', '0x10', 'true', 'null'),
);

/** Numbers JSON can carry, with the ones the store cannot: beyond 2^53, below 1e-130, above 1e126. */
export const nastyNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(
    -0,
    0,
    2 ** 53,
    -(2 ** 53),
    2 ** 53 - 1,
    1e-131,
    -1e-131,
    1e-130,
    1e126,
    1e308,
    5e-324,
    0.1,
  ),
);

const nested = (depth: number) =>
  fc.constantFrom(
    `${'['.repeat(depth)}${']'.repeat(depth)}`,
    `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );

/** Nesting a thousand levels deep, as a value (deeper ones cannot even be written back with JSON.stringify). */
const deep = fc
  .integer({ min: 50, max: 1000 })
  .chain(nested)
  .map((text) => JSON.parse(text));

/** A body given as JSON text, for what JSON.stringify cannot produce. */
export class RawJson {
  constructor(readonly text: string) {}

  [fc.toStringMethod]() {
    return `RawJson(${this.text.slice(0, 20)}… ${this.text.length} chars)`;
  }
}

/** Nesting up to 30,000 levels (the 64 KiB body limit allows ~32,000), as text. */
export const deepJson = fc
  .integer({ min: 1000, max: 30_000 })
  .chain(nested)
  .map((text) => new RawJson(text));

/** Any JSON value, biased towards the shapes that break parsers and validators. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    nastyNumber,
    fc.boolean(),
    fc.constant(null),
    deep,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'prototype')),
      tie('value'),
      {
        maxKeys: 5,
      },
    ),
  ),
})).value;

/** A whole body: any hostile value, or JSON nested deeper than a value can be. */
export const hostileBody: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileValue },
  { weight: 1, arbitrary: deepJson },
);

/**
 * Near misses of a valid object: each field replaced by a hostile value, removed, or joined by an
 * unknown one (including `__proto__`), so most samples are almost accepted.
 */
export const nearMiss = (valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> =>
  valid.chain((object) => {
    const fields = Object.keys(object);
    return fc
      .array(
        fc.oneof(
          fc.record({
            kind: fc.constant('replace' as const),
            field: fc.constantFrom(...fields),
            value: hostileValue,
          }),
          fc.record({ kind: fc.constant('remove' as const), field: fc.constantFrom(...fields) }),
          fc.record({
            kind: fc.constant('add' as const),
            field: fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'isAdmin')),
            value: hostileValue,
          }),
        ),
        { maxLength: 3 },
      )
      .map((edits) => {
        // JSON.parse makes `__proto__` an own property, as a request body would.
        const result: Record<string, unknown> = JSON.parse(JSON.stringify(object));
        for (const edit of edits) {
          if (edit.kind === 'remove') delete result[edit.field];
          else
            Object.defineProperty(result, edit.field, {
              value: edit.value,
              enumerable: true,
              configurable: true,
              writable: true,
            });
        }
        return result;
      });
  });

/**
 * The event around a body, in every shape it may arrive: a JSON string (API Gateway), the parsed value
 * (serverless-offline for `false` and `0`), base64, no body, and the Content-Type missing, wrong, or
 * sent twice in two spellings.
 */
export const eventAround = (body: unknown, extraHeaders: Record<string, string> = {}, path = '/') =>
  fc
    .record({
      shape: fc.constantFrom('json', 'json', 'json', 'value', 'base64', 'none'),
      contentType: fc.constantFrom('ok', 'ok', 'ok', 'missing', 'text/plain', 'duplicate', 'duplicate-same'),
    })
    .map(({ shape, contentType }) => {
      const text = body instanceof RawJson ? body.text : (JSON.stringify(body) ?? '');
      const value = body instanceof RawJson ? JSON.parse(body.text) : body;
      const headers: Record<string, string> = { ...extraHeaders };
      if (contentType === 'ok') headers['Content-Type'] = 'application/json';
      if (contentType === 'text/plain') headers['Content-Type'] = 'text/plain';
      if (contentType.startsWith('duplicate')) {
        headers['Content-Type'] = 'application/json';
        headers['content-type'] = contentType === 'duplicate-same' ? 'application/json' : 'text/csv';
      }
      const event = apiEvent({ method: 'POST', path, headers });
      // How fast-check prints a failing sample: short, and without walking a 30,000-deep value.
      const describe = () =>
        `${shape} body, content-type ${contentType}: ${text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text}`;
      return {
        [fc.toStringMethod]: describe,
        ...event,
        body: (shape === 'json'
          ? text
          : shape === 'value'
            ? value
            : shape === 'base64'
              ? Buffer.from(text).toString('base64')
              : null) as string | null,
        isBase64Encoded: shape === 'base64',
      } as APIGatewayProxyEvent;
    });

/** Calls a handler with a raw event and decodes the answer. */
export const call = async (
  handler: unknown,
  event: APIGatewayProxyEvent | EventInput,
): Promise<InvokeResult> => {
  const raw = 'httpMethod' in event ? event : apiEvent(event);
  const result = await (handler as Handler)(raw, lambdaContext());
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  return { status: result.statusCode, headers, body: result.body ? JSON.parse(result.body) : undefined };
};

const prototypeSnapshot = () => JSON.stringify(Object.getOwnPropertyNames(Object.prototype).sort());
const pristinePrototype = prototypeSnapshot();

/**
 * The invariants of every answer: never 5xx; every 4xx a problem document whose `status` is the HTTP
 * status; and `Object.prototype` untouched (no `__proto__` pollution).
 */
export const expectSound = (result: InvokeResult) => {
  expect(result.status, JSON.stringify(result.body)).toBeLessThan(500);
  if (result.status >= 400) {
    expect(result.headers['content-type']).toBe('application/problem+json');
    expect(result.body.status).toBe(result.status);
    expect(typeof result.body.type).toBe('string');
  }
  expect(prototypeSnapshot()).toBe(pristinePrototype);
  expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
};

/**
 * The service's data, item by item (JSON of each item, by its key): a property compares it before and
 * after. Bookkeeping written by design on refused requests is left out: login attempt counters (the
 * lockout) and a key's days of usage (the rate counter and the refusals of a known key).
 */
export const storedData = async (): Promise<Map<string, string>> => {
  const items = new Map<string, string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.client.send(new ScanCommand({ TableName: db.tableName, ExclusiveStartKey: start }));
    for (const item of page.Items ?? []) {
      if (String(item.pk).startsWith('LOGIN') || String(item.sk).startsWith('USAGE#')) continue;
      items.set(`${item.pk}|${item.sk}`, JSON.stringify(item));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

/** Keys of the items added or changed between two snapshots of `storedData`. */
export const changedItems = (before: Map<string, string>, after: Map<string, string>) =>
  new Set([...after.entries()].filter(([key, item]) => before.get(key) !== item).map(([key]) => key));
