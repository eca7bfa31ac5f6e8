import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { uuidv7 } from '../../../lib/ids';

describe('uuidv7', () => {
  it('is a valid UUID of version 7 with the RFC 9562 variant', () => {
    const id = uuidv7();
    expect(z.safeParse(z.uuid(), id).success).toBe(true);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
  });

  it('is strictly increasing within one millisecond and across milliseconds', () => {
    const sameMs = Array.from({ length: 500 }, () => uuidv7(1_800_000_000_000));
    expect([...sameMs].sort()).toEqual(sameMs);
    expect(new Set(sameMs).size).toBe(500);
    expect(uuidv7(1_800_000_000_001) > sameMs.at(-1)!).toBe(true);
  });
});
