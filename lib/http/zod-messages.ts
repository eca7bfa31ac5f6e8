import type * as z from 'zod/mini';

/**
 * Default messages for zod issues whose schema sets none, worded as zod's English locale words them
 * (tests/unit/lib/http/zod-messages.test.ts compares both on every kind of issue the service's schemas
 * raise). The locale itself is 2.7 KB of every function that validates input, most of it names of
 * formats and types the service never uses (issue 11's 100 KB budget). One departure: a size issue
 * without an origin (a custom check) expects a "value" both ways, where the locale's too_small says "undefined".
 */
const FORMATS: Record<string, string> = {
  uuid: 'UUID',
  email: 'email address',
  url: 'URL',
  date: 'ISO date',
  datetime: 'ISO datetime',
  regex: 'input',
};

const SIZED: Record<string, string> = {
  string: 'characters',
  array: 'items',
  set: 'items',
  map: 'entries',
  file: 'bytes',
};

const show = (value: unknown) => (typeof value === 'string' ? `"${value}"` : String(value));

/** The type name zod's locale reports for a value that JSON can carry. */
const typeName = (input: unknown): string => {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'array';
  if (typeof input === 'number' && !Number.isFinite(input)) return String(input);
  return typeof input;
};

export const zodMessages = (issue: z.core.$ZodRawIssue): string => {
  switch (issue.code) {
    case 'invalid_type':
      return `Invalid input: expected ${issue.expected === 'nan' ? 'NaN' : issue.expected}, received ${typeName(issue.input)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `Invalid input: expected ${show(issue.values[0])}`
        : `Invalid option: expected one of ${issue.values.map(show).join('|')}`;
    case 'too_big':
    case 'too_small': {
      const big = issue.code === 'too_big';
      const adj = issue.exact ? 'exactly ' : issue.inclusive ? (big ? '<=' : '>=') : big ? '<' : '>';
      const bound = String(big ? issue.maximum : issue.minimum);
      const unit = issue.origin && SIZED[issue.origin];
      const what = `${big ? 'Too big' : 'Too small'}: expected ${issue.origin ?? 'value'}`;
      return unit ? `${what} to have ${adj}${bound} ${unit}` : `${what} to be ${adj}${bound}`;
    }
    case 'invalid_format':
      if (issue.format === 'regex') return `Invalid string: must match pattern ${issue.pattern}`;
      return `Invalid ${FORMATS[issue.format] ?? issue.format}`;
    case 'unrecognized_keys':
      return `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.map(show).join(', ')}`;
    default:
      return 'Invalid input';
  }
};
