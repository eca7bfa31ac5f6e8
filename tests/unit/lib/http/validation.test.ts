import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { formatPath, parseInput } from '../../../../lib/http/validation';
import { refusalOf } from '../../../support/refusal';

describe('validation errors', () => {
  it('formats paths the way clients write them', () => {
    expect(formatPath(['measurements', 3, 'actual'])).toBe('measurements[3].actual');
    expect(formatPath(['email'])).toBe('email');
  });

  it('reports every invalid and unknown field at once', () => {
    const schema = z.strictObject({ items: z.array(z.strictObject({ n: z.number() })) });
    try {
      parseInput(schema, { items: [{ n: 1 }, { n: 'x', extra: 1 }], other: true });
      expect.unreachable();
    } catch (error) {
      expect((error as { errors: { path: string }[] }).errors.map((e) => e.path).sort()).toEqual(
        ['items[1].extra', 'items[1].n', 'other'].sort(),
      );
    }
  });

  it('prefixes the paths with a root, and names the whole input by the root or as (body)', () => {
    const schema = z.strictObject({ n: z.number() });
    const errorsOf = (input: unknown, options?: { root?: string; what?: string }) =>
      refusalOf(() => parseInput(schema, input, options));
    expect(errorsOf({ n: 'x' }, { root: 'measurements[2]' }).errors.map((e) => e.path)).toEqual([
      'measurements[2].n',
    ]);
    expect(errorsOf('x', { root: 'measurements[2]' }).errors.map((e) => e.path)).toEqual(['measurements[2]']);
    expect(errorsOf('x').errors.map((e) => e.path)).toEqual(['(body)']);
    expect(errorsOf({ n: 'x', m: 1 }, { what: 'query string' }).message).toBe(
      'The query string has 2 invalid field(s).',
    );
    expect(errorsOf({ n: 'x' }).message).toBe('The request body has 1 invalid field(s).');
  });
});
