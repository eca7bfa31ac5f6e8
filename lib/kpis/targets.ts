import type { Database } from '../db/client';
import { retryingConflicts } from '../db/errors';
import { putKpiChange, readKpiForChange } from '../db/kpis';
import { type AuditContext, auditEvent } from '../domain/audit-event';
import { type Kpi, MAX_KPI_TARGETS, periodTargetKey } from '../domain/kpi';
import { isWholePeriod, periodContaining, periodMismatchMessage } from '../domain/period';
import { AppError, type FieldError } from '../errors';
import { logAuditEvent } from '../logger';

/** A target for one period of a KPI; `null` removes that period's target. */
export interface TargetInput {
  periodStart: string;
  periodEnd: string;
  value: number | null;
}

/** Each target that is not one whole period of the KPI, named by its place in the request. */
const periodProblems = (kpi: Kpi, targets: readonly TargetInput[]): FieldError[] =>
  targets.flatMap((target, i) =>
    isWholePeriod(kpi.period, target)
      ? []
      : [
          {
            path: `targets[${i}].periodStart`,
            message: periodMismatchMessage(kpi.period, periodContaining(kpi.period, target.periodStart)),
          },
        ],
  );

/** The KPI's targets with `targets` applied: each value set, each `null` removed. */
const applied = (kpi: Kpi, targets: readonly TargetInput[]): Record<string, number> => {
  const next: Record<string, number> = { ...kpi.targets };
  for (const target of targets) {
    if (target.value === null) delete next[periodTargetKey(target)];
    else next[periodTargetKey(target)] = target.value;
  }
  return next;
};

const periodText = ({ periodStart, periodEnd }: TargetInput) => `${periodStart}/${periodEnd}`;

/**
 * Sets targets of a KPI of the tenant (another tenant's KPI is undefined, like a missing one), all or
 * none: every target must be one whole period of the KPI (400 naming each that is not), the KPI must be
 * live (409), and it holds at most MAX_KPI_TARGETS periods after the change (409). The KPI is read
 * strongly consistent and written at that version with `kpi.targets_set`, in one transaction; a
 * concurrent change is decided again from a fresh read.
 */
export const setKpiTargets = async (
  db: Database,
  tenantId: string,
  kpiId: string,
  targets: readonly TargetInput[],
  context: AuditContext,
): Promise<Kpi | undefined> =>
  retryingConflicts('KPI', async () => {
    const read = await readKpiForChange(db, tenantId, kpiId);
    if (!read) return undefined;
    const { kpi } = read;
    if (kpi.archivedAt !== undefined)
      throw new AppError(
        'KPI_ARCHIVED',
        `KPI ${kpi.id} (${kpi.name}) is archived; restore it with PATCH {"archived": false} to set its targets.`,
      );
    const problems = periodProblems(kpi, targets);
    if (problems.length > 0) {
      throw new AppError(
        'VALIDATION_FAILED',
        `${problems.length} target(s) are not one whole period of the KPI.`,
        {
          errors: problems,
        },
      );
    }
    const next = applied(kpi, targets);
    const count = Object.keys(next).length;
    if (count > MAX_KPI_TARGETS) {
      throw new AppError(
        'CONFLICT',
        `A KPI holds targets for at most ${MAX_KPI_TARGETS} periods; this change would leave ${count}. Remove some with "value": null.`,
        { extensions: { limit: MAX_KPI_TARGETS } },
      );
    }
    const { targets: _old, ...rest } = kpi;
    const updated: Kpi = count > 0 ? { ...rest, targets: next } : rest;
    const now = Date.now();
    const at = new Date(now).toISOString();
    const event = auditEvent(
      context,
      {
        type: 'kpi.targets_set',
        tenantId,
        target: { type: 'kpi', id: kpiId },
        details: {
          set: targets.filter((t) => t.value !== null).map(periodText),
          removed: targets.filter((t) => t.value === null).map(periodText),
          stored: count,
        },
      },
      now,
    );
    await putKpiChange(db, read, updated, at, event);
    logAuditEvent(event);
    return updated;
  });
