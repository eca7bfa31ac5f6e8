import { describe, expect, it } from 'vitest';
import { groupByCycle, NO_OWNER, ownedBy, ownersOf } from '../../../web/shared/groups';

/** The KPI list's grouping by cycle and its owner filter, without a browser. */
const cycles = [
  { id: 'c2', name: 'Strategy 2027', startDate: '2027-01-01' },
  { id: 'c1', name: 'Strategy 2026', startDate: '2026-01-01' },
  { id: 'c3', name: 'Empty cycle', startDate: '2025-01-01' },
];
const kpis = [
  { id: 'a', cycleId: 'c2', ownerId: 'u1' },
  { id: 'b', cycleId: null, ownerId: 'u2' },
  { id: 'c', cycleId: 'c1' },
  { id: 'd', cycleId: 'c2', ownerId: 'u1' },
  { id: 'e', cycleId: 'gone', ownerId: null },
];

describe('the KPI list grouped by cycle', () => {
  it('has a group per cycle with KPIs, in the order the cycles start, and the KPIs in no cycle last', () => {
    const groups = groupByCycle(kpis, cycles);
    expect(groups.map((group) => [group.cycle?.name ?? null, group.items.map((kpi) => kpi.id)])).toEqual([
      ['Strategy 2026', ['c']],
      ['Strategy 2027', ['a', 'd']],
      [null, ['b', 'e']],
    ]);
  });

  it('has no "no cycle" group when every KPI is in a cycle, and one group without cycles', () => {
    expect(groupByCycle([kpis[0]!], cycles).map((group) => group.cycle?.id)).toEqual(['c2']);
    expect(groupByCycle(kpis, [])).toEqual([{ cycle: null, items: kpis }]);
    expect(groupByCycle([], cycles)).toEqual([]);
  });
});

describe('the owner filter', () => {
  it('keeps an owner’s KPIs, those without an owner, or all', () => {
    expect(ownedBy(kpis, 'u1').map((kpi) => kpi.id)).toEqual(['a', 'd']);
    expect(ownedBy(kpis, NO_OWNER).map((kpi) => kpi.id)).toEqual(['c', 'e']);
    expect(ownedBy(kpis, null)).toHaveLength(kpis.length);
  });

  it('offers each owner once', () => {
    expect(ownersOf(kpis)).toEqual(['u1', 'u2']);
  });
});
