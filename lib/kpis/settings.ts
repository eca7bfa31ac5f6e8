import type { Database } from '../db/client';
import { WriteConflict } from '../db/errors';
import { type KpiSettings, putKpiSettings, readKpiForChange } from '../db/kpis';
import { type AuditContext, auditEvent, systemContext } from '../domain/audit-event';
import type { Kpi } from '../domain/kpi';
import { logAuditEvent } from '../logger';

/** The settings an ADMIN may change, in the order the audit event lists them. */
const SETTINGS = ['direction', 'tolerance', 'qualitative', 'cadence', 'graceHours'] as const;

/** How often a change is decided again when the KPI's settings changed between the read and the write. */
const MAX_TRIES = 5;

/**
 * Changes a KPI's target rule and cadence, only a KPI of the tenant (another tenant's KPI is undefined,
 * like a missing one), and records `kpi.updated` with it in one transaction: the settings as they are
 * now and which of them changed. The KPI is read first (strongly consistent), so the event says what
 * changed and the answer is the KPI as written; a concurrent change of its settings in between is
 * decided again from a fresh read.
 */
export const updateKpi = async (
  db: Database,
  tenantId: string,
  kpiId: string,
  patch: Partial<KpiSettings>,
  context: AuditContext = systemContext('service'),
): Promise<Kpi | undefined> => {
  let conflict: unknown;
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const read = await readKpiForChange(db, tenantId, kpiId);
    if (!read) return undefined;
    const changes = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
    const updated: Kpi = { ...read.kpi, ...changes };
    const now = Date.now();
    const event = auditEvent(
      context,
      {
        type: 'kpi.updated',
        tenantId,
        target: { type: 'kpi', id: kpiId },
        details: {
          name: updated.name,
          ...Object.fromEntries(SETTINGS.map((setting) => [setting, updated[setting]])),
          changed: SETTINGS.filter((setting) => updated[setting] !== read.kpi[setting]),
        },
      },
      now,
    );
    try {
      await putKpiSettings(db, read, patch, new Date(now).toISOString(), event);
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      conflict = error;
      continue;
    }
    logAuditEvent(event);
    return updated;
  }
  throw new Error(`KPI ${kpiId} kept changing; the change was not made.`, { cause: conflict });
};
