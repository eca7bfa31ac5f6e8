import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { formatPath, parseInput } from '../../../../lib/http/validation';

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
});
