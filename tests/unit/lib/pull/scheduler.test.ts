import { describe, expect, it } from 'vitest';
import type { DueEntry } from '../../../../lib/db/pull-integrations';
import { CLAIMS_PER_TENANT_PER_PASS, inTurns } from '../../../../lib/pull/scheduler';

const entry = (tenantId: string, n: number): DueEntry => ({
  tenantId,
  integrationId: `${tenantId}-${n}`,
  entry: `2026-12-01T00:00:00.000Z#${tenantId}#${n}`,
  dueAt: '2026-12-01T00:00:00.000Z',
});
const ids = (entries: DueEntry[]) => entries.map((e) => e.integrationId);

describe('the due slots of a pass, in turns of the tenants', () => {
  it('takes each tenant’s oldest slot first, tenants in the order of their oldest, then the second of each', () => {
    const due = [entry('a', 1), entry('a', 2), entry('a', 3), entry('b', 1), entry('c', 1), entry('b', 2)];
    expect(ids(inTurns(due, 10).turns)).toEqual(['a-1', 'b-1', 'c-1', 'a-2', 'b-2', 'a-3']);
    expect(inTurns(due, 10).deferred).toBe(0);
  });

  it('claims at most `perTenant` of a tenant and defers the rest, whatever the others have', () => {
    const many = Array.from({ length: 1000 }, (_, i) => entry('a', i));
    const { turns, deferred } = inTurns([...many, entry('b', 0)], 3);
    expect(ids(turns)).toEqual(['a-0', 'b-0', 'a-1', 'a-2']);
    expect(deferred).toBe(997);
  });

  it('gives another tenant the second place among a tenant’s 1,000 due slots, and 50 to each per pass', () => {
    const many = Array.from({ length: 1000 }, (_, i) => entry('a', i));
    const { turns, deferred } = inTurns([...many, entry('b', 0)], CLAIMS_PER_TENANT_PER_PASS);
    expect(CLAIMS_PER_TENANT_PER_PASS).toBe(50);
    expect(turns.findIndex((e) => e.tenantId === 'b')).toBe(1);
    expect(turns).toHaveLength(51);
    expect(deferred).toBe(950);
  });

  it('is nothing for nothing due', () => {
    expect(inTurns([], 50)).toEqual({ turns: [], deferred: 0 });
  });
});
