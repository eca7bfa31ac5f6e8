import { describe, expect, it } from 'vitest';
import { INDEX_SHARDS, keys, shardOf } from '../../../../lib/db/keys';
import { kpis } from '../../../../lib/db/kpis';

const K = '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f';
const T = '01936f0e-8a10-7f0b-8c55-1d2e3f405162';

/** The KPI's item: in the tenant's index always, in the cadence index only while it has a cadence. */
describe('a KPI item', () => {
  const kpi = (cadence: 'none' | 'daily') =>
    kpis.fromItem({
      ...keys.kpi(K),
      ...keys.kpiIndex(T, K),
      type: 'KPI',
      id: K,
      tenantId: T,
      name: 'Revenue',
      kpiType: 'BSC_KPI',
      cadence,
      createdAt: '2026-11-27T10:00:00.000Z',
    });

  it('is in the alert check’s index with a cadence, due for a look at its creation, and out of it without', () => {
    const daily = kpis.toItem(kpi('daily'));
    expect(daily).toMatchObject({
      ...keys.kpiQuietIndex(K, '2026-11-27T10:00:00.000Z'),
      ...keys.kpiIndex(T, K),
    });
    expect(daily.gsi2pk).toBe(`QUIET#${shardOf(K)}`);
    expect(daily.gsi2sk).toBe(`2026-11-27T10:00:00.000Z#${K}`);
    const none = kpis.toItem(kpi('none'));
    expect(none).toMatchObject(keys.kpiIndex(T, K));
    expect(none).not.toHaveProperty('gsi2pk');
  });
});

describe('the shards of the due indexes', () => {
  it('an id is always in the same shard, within 0 to INDEX_SHARDS - 1, and ids spread over every shard', () => {
    const ids = Array.from(
      { length: 2000 },
      (_, n) => `01936f0e-7d5a-7c3e-9a41-${String(n).padStart(12, '0')}`,
    );
    const shards = ids.map(shardOf);
    expect(ids.map(shardOf)).toEqual(shards);
    expect(new Set(shards)).toEqual(new Set(Array.from({ length: INDEX_SHARDS }, (_, n) => n)));
    // No shard holds more than twice its share.
    for (let shard = 0; shard < INDEX_SHARDS; shard++) {
      expect(shards.filter((s) => s === shard).length).toBeLessThan((2 * ids.length) / INDEX_SHARDS);
    }
    expect(keys.pullDueIndex('2026-01-01T00:00:00.000Z', T, K).gsi2pk).toBe(`PULLDUE#${shardOf(K)}`);
    expect(keys.pullDue(String(shardOf(K))).gsi2pk).toBe(`PULLDUE#${shardOf(K)}`);
    expect(keys.kpisDueForCheck(String(shardOf(K))).gsi2pk).toBe(keys.kpiQuietIndex(K, '').gsi2pk);
  });
});
