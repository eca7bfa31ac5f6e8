import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { AppError, type FieldError } from '../errors';

/** zod/mini ships without messages: zod's English ones, where a schema does not set its own. */
z.config(en());

/** Renders a zod path the way clients write it: `measurements[3].actual`. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((out, part) => {
    if (typeof part === 'number') return `${out}[${part}]`;
    const name = String(part);
    return out === '' ? name : `${out}.${name}`;
  }, '');

const toFieldErrors = (issues: ReadonlyArray<z.core.$ZodIssue>, root: string): FieldError[] =>
  issues.flatMap((issue) => {
    const base = formatPath(issue.path);
    const prefixed = (path: string) => (root === '' ? path : path === '' ? root : `${root}.${path}`);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: prefixed(base === '' ? key : `${base}.${key}`),
        message: 'Unknown field',
      }));
    }
    return [{ path: prefixed(base) || '(body)', message: issue.message }];
  });

/**
 * Parses request input with a strict schema. Every offending field is reported at once, so a client
 * fixes its request in one round instead of one error at a time.
 */
export const parseInput = <S extends z.core.$ZodType>(
  schema: S,
  input: unknown,
  { root = '', what = 'request body' }: { root?: string; what?: string } = {},
): z.output<S> => {
  const result = z.safeParse(schema, input);
  if (result.success) return result.data;
  const errors = toFieldErrors(result.error.issues, root);
  throw new AppError('VALIDATION_FAILED', `The ${what} has ${errors.length} invalid field(s).`, { errors });
};
