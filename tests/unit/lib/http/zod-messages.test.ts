import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { zodMessages } from '../../../../lib/http/zod-messages';

/** The issues zod raises for `input`, with the input they are about (what a message is made from). */
const rawIssues = (schema: z.core.$ZodType, input: unknown): z.core.$ZodRawIssue[] =>
  (z.safeParse(schema, input, { reportInput: true }).error?.issues ?? []) as z.core.$ZodRawIssue[];

const english = en().localeError as (issue: z.core.$ZodRawIssue) => string;

const cases: [string, z.core.$ZodType, unknown][] = [
  ['string, got number', z.string(), 1],
  ['string, got undefined', z.strictObject({ name: z.string() }), {}],
  ['number, got string', z.number(), '1'],
  ['number, got null', z.number(), null],
  ['object, got array', z.strictObject({}), []],
  ['object, got boolean', z.strictObject({}), false],
  ['array, got object', z.array(z.string()), {}],
  ['literal', z.literal('activity'), 'x'],
  ['enum', z.enum(['a', 'b']), 'c'],
  ['string too short', z.string().check(z.minLength(1)), ''],
  ['string too long', z.string().check(z.maxLength(2)), 'abc'],
  ['array too short', z.array(z.number()).check(z.minLength(1)), []],
  ['array too long', z.array(z.number()).check(z.maxLength(1)), [1, 2]],
  ['number too small', z.number().check(z.gte(1)), 0],
  ['number too big', z.number().check(z.lte(5)), 6],
  ['number not above', z.number().check(z.gt(1)), 1],
  ['int', z.int(), 1.5],
  ['uuid', z.uuid(), 'x'],
  ['iso date', z.iso.date(), '2026-13-01'],
  ['iso datetime', z.iso.datetime(), 'x'],
  ['email', z.email(), 'x'],
  ['url', z.url(), 'x'],
  ['regex', z.string().check(z.regex(/^a+$/)), 'b'],
  ['unrecognized key', z.strictObject({}), { a: 1 }],
  ['unrecognized keys', z.strictObject({}), { a: 1, b: 2 }],
  ['union', z.union([z.string(), z.number()]), true],
  ['number, got NaN', z.number(), Number.NaN],
  ['NaN, got number', z.nan(), 1],
  ['number literal', z.literal(5), 4],
  ['string of exact length', z.string().check(z.length(3)), 'ab'],
  ['number not below', z.number().check(z.lt(5)), 5],
];

describe('default zod messages', () => {
  it.each(cases)('%s: as zod’s English locale words it', (_, schema, input) => {
    const issues = rawIssues(schema, input);
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(zodMessages(issue)).toBe(english(issue));
  });
});

describe('issues without an origin (a custom check)', () => {
  it('too_big: as the locale words it', () => {
    const issue = { code: 'too_big', maximum: 3, inclusive: true, input: 4 } as z.core.$ZodRawIssue;
    expect(zodMessages(issue)).toBe(english(issue));
    expect(zodMessages(issue)).toBe('Too big: expected value to be <=3');
  });

  it('too_small: "value", where the locale says "undefined"', () => {
    const issue = { code: 'too_small', minimum: 3, inclusive: false, input: 2 } as z.core.$ZodRawIssue;
    expect(english(issue)).toBe('Too small: expected undefined to be >3');
    expect(zodMessages(issue)).toBe('Too small: expected value to be >3');
  });
});
