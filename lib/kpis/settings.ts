import type { Database } from '../db/client';
import { retryingConflicts } from '../db/errors';
import { createKpi, KpiLimitReached, type NewKpi, putKpiChange, readKpiForChange } from '../db/kpis';
import { getTenant } from '../db/tenants';
import { type AuditContext, auditEvent, systemContext, type TenantAuditEvent } from '../domain/audit-event';
import type { Kpi } from '../domain/kpi';
import { KPI_LIMITS, type Plan } from '../domain/plan';
import { AppError } from '../errors';
import { logAuditEvent } from '../logger';

/** What a KPI's audit events list of it, in this order; `changed` names those a change set. */
const FIELDS = [
  'name',
  'type',
  'unit',
  'description',
  'period',
  'direction',
  'tolerance',
  'qualitative',
  'cadence',
  'graceHours',
  'cycleId',
  'ownerId',
] as const satisfies readonly (keyof Kpi)[];
type Field = (typeof FIELDS)[number];

/**
 * A change of a KPI: each field sent is set; `null` clears an optional one (its unit, description,
 * cycle or owner); `archived` archives (true) or restores (false) it.
 */
export type KpiPatch = { [F in Field]?: Kpi[F] | (undefined extends Kpi[F] ? null : never) } & {
  archived?: boolean | undefined;
};

const detailsOf = (kpi: Kpi) =>
  Object.fromEntries(FIELDS.map((field) => [field, kpi[field] ?? null])) as Record<
    Field,
    string | number | boolean | null
  >;

/** The plan's maximum as a 409 that names it. */
const limitReached = (plan: Plan, cause: unknown) => {
  const limit = KPI_LIMITS[plan];
  return new AppError(
    'KPI_LIMIT_REACHED',
    `The ${plan} plan allows ${limit} live KPIs and all ${limit} exist. Archive one or upgrade the plan.`,
    { extensions: { limit, plan }, cause },
  );
};

const planOf = async (db: Database, tenantId: string): Promise<Plan> => {
  const tenant = await getTenant(db, tenantId);
  if (!tenant) throw new AppError('NOT_FOUND', `Tenant ${tenantId} not found.`);
  return tenant.plan;
};

/**
 * A new KPI of the tenant, within its plan's maximum of live KPIs (the count decides, also when several
 * are created at once), with `kpi.created` in the same transaction.
 */
export const createTenantKpi = async (
  db: Database,
  tenantId: string,
  input: Omit<NewKpi, 'period'> & { period?: Kpi['period'] | undefined },
  context: AuditContext,
): Promise<Kpi> => {
  const plan = await planOf(db, tenantId);
  try {
    let created: TenantAuditEvent | undefined;
    const kpi = await retryingConflicts('KPI', () =>
      createKpi(db, tenantId, input, {
        max: KPI_LIMITS[plan],
        eventOf: (kpi) => {
          created = auditEvent(context, {
            type: 'kpi.created',
            tenantId,
            target: { type: 'kpi', id: kpi.id },
            details: detailsOf(kpi),
          });
          return created;
        },
      }),
    );
    if (created) logAuditEvent(created);
    return kpi;
  } catch (error) {
    if (error instanceof KpiLimitReached) throw limitReached(plan, error);
    throw error;
  }
};

/** The KPI a patch makes of `kpi`: fields sent set, `null` cleared, `archived` as the archive time. */
const patched = (kpi: Kpi, { archived, ...patch }: KpiPatch, at: string): Kpi => {
  const next: Record<string, unknown> = { ...kpi };
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) delete next[field];
    else if (value !== undefined) next[field] = value;
  }
  if (archived === true) next.archivedAt = kpi.archivedAt ?? at;
  if (archived === false) delete next.archivedAt;
  return next as Kpi;
};

/**
 * Changes a KPI of the tenant (another tenant's KPI is undefined, like a missing one) and records its
 * event with it in one transaction: `kpi.archived` or `kpi.restored` when its state changes, else
 * `kpi.updated`, each with the KPI as it is now and which fields changed. The KPI is read first
 * (strongly consistent), so the event says what changed and the answer is the KPI as written; a
 * concurrent change in between is decided again from a fresh read. A restored KPI counts against the
 * plan's maximum again.
 */
export const updateKpi = async (
  db: Database,
  tenantId: string,
  kpiId: string,
  patch: KpiPatch,
  context: AuditContext = systemContext('service'),
): Promise<Kpi | undefined> => {
  const plan = patch.archived === false ? await planOf(db, tenantId) : undefined;
  try {
    return await retryingConflicts('KPI', async () => {
      const read = await readKpiForChange(db, tenantId, kpiId);
      if (!read) return undefined;
      const now = Date.now();
      const at = new Date(now).toISOString();
      const updated = patched(read.kpi, patch, at);
      const state =
        read.kpi.archivedAt === undefined && updated.archivedAt !== undefined
          ? 'kpi.archived'
          : read.kpi.archivedAt !== undefined && updated.archivedAt === undefined
            ? 'kpi.restored'
            : 'kpi.updated';
      const changed = FIELDS.filter((field) => updated[field] !== read.kpi[field]);
      // Archiving an archived KPI (or restoring a live one) is answered as it is, and writes nothing.
      if (
        state === 'kpi.updated' &&
        changed.length === 0 &&
        Object.keys(patch).every((f) => f === 'archived')
      ) {
        return read.kpi;
      }
      const event = auditEvent(
        context,
        {
          type: state,
          tenantId,
          target: { type: 'kpi', id: kpiId },
          details: {
            ...detailsOf(updated),
            archived: updated.archivedAt !== undefined,
            changed,
          },
        },
        now,
      );
      await putKpiChange(db, read, updated, at, event, plan ? KPI_LIMITS[plan] : null);
      logAuditEvent(event);
      return updated;
    });
  } catch (error) {
    if (error instanceof KpiLimitReached && plan) throw limitReached(plan, error);
    throw error;
  }
};
