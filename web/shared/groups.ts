/**
 * KPIs grouped by strategic cycle (the KPI page's list, the strategy page's cycles): a group per cycle in the order the cycles run (by start
 * date, then name), the KPIs in no cycle (or in a cycle not loaded) last; and the owners the list can
 * be filtered by.
 */

export interface CycleRef {
  id: string;
  name: string;
  startDate: string;
}

export interface Group<K> {
  /** Null: the KPIs in no cycle. */
  cycle: CycleRef | null;
  items: K[];
}

export const groupByCycle = <K extends { cycleId?: string | null | undefined }>(
  items: readonly K[],
  cycles: readonly CycleRef[],
): Group<K>[] => {
  const known = new Map(cycles.map((cycle) => [cycle.id, cycle] as const));
  const groups = new Map<string | null, K[]>();
  for (const item of items) {
    const id = item.cycleId && known.has(item.cycleId) ? item.cycleId : null;
    groups.set(id, [...(groups.get(id) ?? []), item]);
  }
  const ordered = [...known.values()]
    .filter((cycle) => groups.has(cycle.id))
    .sort((a, b) => a.startDate.localeCompare(b.startDate) || a.name.localeCompare(b.name));
  return [
    ...ordered.map((cycle) => ({ cycle, items: groups.get(cycle.id) ?? [] })),
    ...(groups.has(null) ? [{ cycle: null, items: groups.get(null) ?? [] }] : []),
  ];
};

/** The cycle filter's value for the KPIs in no cycle. */
export const NO_CYCLE = 'none';

/** The owner filter's value for the KPIs without an owner. */
export const NO_OWNER = 'none';

/** The KPIs of an owner (a user id, or NO_OWNER); every KPI when `owner` is null. */
export const ownedBy = <K extends { ownerId?: string | null | undefined }>(
  items: readonly K[],
  owner: string | null,
): K[] => (owner === null ? [...items] : items.filter((item) => (item.ownerId ?? NO_OWNER) === owner));

/** An owner in words: the signed-in user (`me`) is "You"; others by the start of their user id. */
export const ownerName = (me: string | undefined, ownerId: string) =>
  ownerId === me ? 'You' : `User ${ownerId.slice(0, 8)}`;

/** The owners of the KPIs, each once, in the order first met: the owner filter's options. */
export const ownersOf = (items: readonly { ownerId?: string | null | undefined }[]): string[] => [
  ...new Set(items.flatMap((item) => (item.ownerId ? [item.ownerId] : []))),
];
