import type { Database } from '../db/client';
import { retryingConflicts } from '../db/errors';
import { listKpis } from '../db/kpis';
import {
  createStrategicCycle,
  deleteCycleWithoutKpis,
  putCycleChange,
  readCycleForChange,
} from '../db/strategic-cycles';
import { type AuditContext, auditEvent, type TenantAuditEvent } from '../domain/audit-event';
import type { StrategicCycle } from '../domain/strategic-cycle';
import { AppError } from '../errors';
import { logAuditEvent } from '../logger';
import { recentOf, statusFrom } from './overview';
import { KPI_STATUSES } from './status';

const FIELDS = ['name', 'startDate', 'endDate', 'description', 'status'] as const;
const detailsOf = (cycle: StrategicCycle) =>
  Object.fromEntries(FIELDS.map((field) => [field, cycle[field] ?? null])) as Record<string, string | null>;

const notFound = (cycleId: string) => new AppError('NOT_FOUND', `Strategic cycle ${cycleId} not found.`);

/** A new cycle of the tenant, `planned`, with `cycle.created` in the same transaction. */
export const createCycle = async (
  db: Database,
  tenantId: string,
  input: { name: string; startDate: string; endDate: string; description?: string | undefined },
  context: AuditContext,
): Promise<StrategicCycle> => {
  let created: TenantAuditEvent | undefined;
  const cycle = await createStrategicCycle(db, tenantId, input, (cycle) => {
    created = auditEvent(context, {
      type: 'cycle.created',
      tenantId,
      target: { type: 'cycle', id: cycle.id },
      details: detailsOf(cycle),
    });
    return created;
  });
  if (created) logAuditEvent(created);
  return cycle;
};

export type CyclePatch = Partial<Omit<StrategicCycle, 'id' | 'createdAt' | 'description'>> & {
  description?: string | null | undefined;
};

/**
 * Changes a cycle of the tenant (dates still in order, else 400) with `cycle.updated`, which names
 * what changed; decided again from a fresh read when it changed meanwhile. NOT_FOUND for a cycle that
 * is not the tenant's.
 */
export const updateCycle = async (
  db: Database,
  tenantId: string,
  cycleId: string,
  patch: CyclePatch,
  context: AuditContext,
): Promise<StrategicCycle> =>
  retryingConflicts('strategic cycle', async () => {
    const read = await readCycleForChange(db, tenantId, cycleId);
    if (!read) throw notFound(cycleId);
    const { kpiCount: _count, ...before } = read.cycle;
    const next: Record<string, unknown> = { ...before };
    for (const [field, value] of Object.entries(patch)) {
      if (value === null) delete next[field];
      else if (value !== undefined) next[field] = value;
    }
    const updated = next as StrategicCycle;
    const now = Date.now();
    const event = auditEvent(
      context,
      {
        type: 'cycle.updated',
        tenantId,
        target: { type: 'cycle', id: cycleId },
        details: {
          ...detailsOf(updated),
          changed: FIELDS.filter((field) => updated[field] !== before[field]),
        },
      },
      now,
    );
    await putCycleChange(db, tenantId, read, updated, new Date(now).toISOString(), event);
    logAuditEvent(event);
    return updated;
  });

/** Deletes a cycle without KPIs (`cycle.deleted`); one with KPIs is 409 naming how many. */
export const deleteCycle = async (db: Database, tenantId: string, cycleId: string, context: AuditContext) =>
  retryingConflicts('strategic cycle', async () => {
    const read = await readCycleForChange(db, tenantId, cycleId);
    if (!read) throw notFound(cycleId);
    const { kpiCount, name } = read.cycle;
    if (kpiCount > 0) {
      throw new AppError(
        'CYCLE_HAS_KPIS',
        `Strategic cycle ${name} has ${kpiCount} KPI(s), live or archived; move them to another cycle or clear their cycleId first.`,
        { extensions: { kpiCount } },
      );
    }
    const event = auditEvent(context, {
      type: 'cycle.deleted',
      tenantId,
      target: { type: 'cycle', id: cycleId },
      details: detailsOf(read.cycle),
    });
    await deleteCycleWithoutKpis(db, tenantId, cycleId, event);
    logAuditEvent(event);
  });

/** How many of a cycle's live KPIs stand where; `qualitative` ones have no status. */
export type CycleStatusCounts = Record<(typeof KPI_STATUSES)[number] | 'qualitative', number>;

/**
 * A cycle of the tenant with the status counts of its live KPIs: its KPIs a page at a time (one key
 * condition, lib/db/keys.ts), each KPI's newest measurements (one Query each, in parallel) for its
 * status. Its cost grows with the cycle's KPIs, which the plan's maximum bounds.
 */
export const cycleWithStatusCounts = async (
  db: Database,
  tenantId: string,
  cycleId: string,
): Promise<(StrategicCycle & { kpiCount: number; statusCounts: CycleStatusCounts }) | undefined> => {
  const read = await readCycleForChange(db, tenantId, cycleId);
  if (!read) return undefined;
  const statusCounts = Object.fromEntries(
    [...KPI_STATUSES, 'qualitative'].map((s) => [s, 0]),
  ) as CycleStatusCounts;
  let live = 0;
  let cursor: string | undefined;
  do {
    const page = await listKpis(db, tenantId, { limit: 100, ...(cursor ? { cursor } : {}) }, { cycleId });
    const recent = await recentOf(db, page.items);
    const statuses = await Promise.all(page.items.map((kpi, i) => statusFrom(db, kpi, recent[i] ?? [])));
    for (const status of statuses) statusCounts[status?.value ?? 'qualitative']++;
    live += page.items.length;
    cursor = page.nextCursor;
  } while (cursor);
  const { kpiCount: _all, ...cycle } = read.cycle;
  return { ...cycle, kpiCount: live, statusCounts };
};
