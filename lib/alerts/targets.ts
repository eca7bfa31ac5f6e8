import { kpisWithTargetMarks, moveTargetMark, type TargetMark, type TargetMarks } from '../db/alerts';
import type { Database } from '../db/client';
import { listRecentMeasurements } from '../db/measurements';
import { listTenants } from '../db/tenants';
import type { Kpi } from '../domain/kpi';
import { kpiProjection, PROJECTION_HISTORY } from '../kpis/projection';
import { kpiStatus, newestWithTarget } from '../kpis/status';
import type { Publish, WebhookEvent } from '../webhooks/events';

/** Below this chance of meeting the next target a KPI is off pace. */
export const PACE_THRESHOLD = 0.5;

/** Most KPIs whose history one check reads at once. */
const READS_AT_ONCE = 25;

export interface TargetAlertResult {
  /** Non-qualitative KPIs the check looked at. */
  kpisChecked: number;
  /** `kpi.off_track` events published by this run. */
  offTrack: number;
  /** `kpi.off_pace` events published by this run (either way across the threshold). */
  paceChanges: number;
  /** Events whose publishing failed; their mark is taken back, so the next run tries again. */
  failed: number;
}

interface Deps {
  db: Database;
  publish: Publish;
  now: number;
}

type Outcome = 'published' | 'failed' | 'moved' | undefined;
interface Moved {
  mark: TargetMark;
  outcome: Outcome;
}

/** The pace a projection's next period with a target says, with what it is measured on; undefined without one. */
const paceOf = (kpi: Kpi, recent: Parameters<typeof kpiProjection>[1]) => {
  const next = kpiProjection(kpi, recent, [], 1).periods[0];
  if (next?.probability === undefined || next.target === undefined) return undefined;
  return { mark: next.probability < PACE_THRESHOLD ? 'off' : 'on', period: next } as const;
};

/**
 * Moves a mark, and publishes the event of the move when there is one; a failed publish moves the
 * mark back. Moving is a conditional write, so of several checks at once exactly one publishes.
 */
const move = async (
  deps: Deps,
  kpiId: string,
  mark: TargetMark,
  from: string | null,
  to: string | null,
  event: WebhookEvent | undefined,
): Promise<Moved> => {
  if (!(await moveTargetMark(deps.db, kpiId, mark, from, to))) return { mark, outcome: undefined };
  if (!event) return { mark, outcome: 'moved' };
  try {
    await deps.publish(event);
    return { mark, outcome: 'published' };
  } catch {
    await moveTargetMark(deps.db, kpiId, mark, to, from);
    return { mark, outcome: 'failed' };
  }
};

const checkKpi = async (deps: Deps, kpi: Kpi, marks: TargetMarks): Promise<Moved[]> => {
  const recent = await listRecentMeasurements(deps.db, kpi.id, PROJECTION_HISTORY);
  const status = kpiStatus(kpi, newestWithTarget(kpi, recent), recent.length > 0);
  const occurredAt = new Date(deps.now).toISOString();
  const base = { kpiId: kpi.id, name: kpi.name };
  const outcomes: Promise<Moved>[] = [];
  const offTrack = status?.value === 'off_track';
  if (offTrack && marks.statusNotified !== 'off_track')
    outcomes.push(
      move(deps, kpi.id, 'statusNotified', marks.statusNotified, 'off_track', {
        type: 'kpi.off_track',
        tenantId: kpi.tenantId,
        occurredAt,
        data: { ...base, status: 'off_track', measurement: status?.measurement ?? null },
      }),
    );
  // Back from off track: no event, but the next crossing notifies again.
  if (!offTrack && marks.statusNotified === 'off_track')
    outcomes.push(move(deps, kpi.id, 'statusNotified', 'off_track', null, undefined));
  const pace = paceOf(kpi, recent);
  // Absent is on pace: a KPI first seen on pace, or without a target ahead, is no change.
  const was = marks.paceNotified ?? 'on';
  const now = pace?.mark ?? 'on';
  if (now !== was && pace)
    outcomes.push(
      move(deps, kpi.id, 'paceNotified', marks.paceNotified, now === 'off' ? 'off' : null, {
        type: 'kpi.off_pace',
        tenantId: kpi.tenantId,
        occurredAt,
        data: {
          ...base,
          onPace: now === 'on',
          probability: pace.period.probability,
          target: pace.period.target,
          direction: kpi.direction,
          periodStart: pace.period.periodStart,
          periodEnd: pace.period.periodEnd,
        },
      }),
    );
  // Off pace, and now no target ahead (or too little history): quietly on pace again.
  if (!pace && was === 'off') outcomes.push(move(deps, kpi.id, 'paceNotified', 'off', null, undefined));
  return Promise.all(outcomes);
};

/**
 * The scheduled check of every KPI's target (run with the alert check): publishes `kpi.off_track`
 * once each time a KPI's status crosses into off track, and `kpi.off_pace` once each time the chance
 * of meeting its next period's target crosses PACE_THRESHOLD, down or back up. Reads are Queries only:
 * the tenants, a page of each one's KPIs, and each non-qualitative KPI's PROJECTION_HISTORY newest
 * measurements; a write only when a mark moves. Nothing of it is on the push path.
 */
export const runTargetAlertCheck = async (deps: Deps): Promise<TargetAlertResult> => {
  const outcomes: Moved[] = [];
  let kpisChecked = 0;
  let tenantCursor: string | undefined;
  do {
    const tenants = await listTenants(deps.db, { limit: 100, cursor: tenantCursor });
    for (const tenant of tenants.items) {
      let cursor: string | undefined;
      do {
        const page = await kpisWithTargetMarks(deps.db, tenant.id, { limit: 100, cursor });
        const quantitative = page.items.filter(({ kpi }) => !kpi.qualitative);
        kpisChecked += quantitative.length;
        for (let start = 0; start < quantitative.length; start += READS_AT_ONCE) {
          const slice = quantitative.slice(start, start + READS_AT_ONCE);
          for (const kpiOutcomes of await Promise.all(
            slice.map(({ kpi, marks }) => checkKpi(deps, kpi, marks)),
          ))
            outcomes.push(...kpiOutcomes);
        }
        cursor = page.nextCursor;
      } while (cursor);
    }
    tenantCursor = tenants.nextCursor;
  } while (tenantCursor);
  const published = (mark: TargetMark) =>
    outcomes.filter((o) => o.mark === mark && o.outcome === 'published').length;
  return {
    kpisChecked,
    offTrack: published('statusNotified'),
    paceChanges: published('paceNotified'),
    failed: outcomes.filter((o) => o.outcome === 'failed').length,
  };
};
