import {
  type DueKpi,
  type ExpiringKey,
  forgetExpiryNotice,
  forgetQuietSpell,
  indexKeyExpiry,
  keysExpiringBetween,
  kpisDueForCheck,
  moveQuietEntry,
  recordExpiryNotice,
  recordQuietSpell,
} from '../db/alerts';
import { allApiKeysOf } from '../db/api-keys';
import type { Database } from '../db/client';
import { listRecentMeasurements } from '../db/measurements';
import { listTenants } from '../db/tenants';
import { RECENT_MEASUREMENTS } from '../kpis/activity';
import { kpiArrivals, kpiQuietness } from '../kpis/quiet';
import type { Publish, WebhookEvent } from '../webhooks/events';

const DAY_MS = 86_400_000;

/**
 * How many days before its expiry a key's tenant hears of it, most urgent last. A check that runs
 * late still sends each threshold the key is past, but only the most urgent one: a key with hours
 * left gets the 1-day notice, never a 7-day one that would understate the urgency.
 */
export const EXPIRY_NOTICE_DAYS = [7, 1] as const;

/** Most KPIs whose newest measurements one check reads at once. */
const READS_AT_ONCE = 50;

/**
 * Most due KPIs one run reads from each shard of the index (lib/db/keys.ts): a run looks at no more
 * than INDEX_SHARDS times this, and a backlog (after an outage, a migration) is worked off by the
 * next runs, 15 minutes apart.
 */
export const DUE_KPIS_PER_SHARD = 100;

/** The spell a quiet KPI is in: named by its last arrival, which the next arrival changes. */
const NEVER = 'never';

export interface AlertCheckResult {
  /** KPIs whose entry in the index was due, that the check looked at. */
  kpisChecked: number;
  /** Of those, the KPIs not notified whose entry moved: to when they go quiet, or on after a notice. */
  kpisRescheduled: number;
  /** Due KPIs left for the next run: a shard had more than DUE_KPIS_PER_SHARD. */
  kpisDeferred: boolean;
  /** `kpi.quiet` events published by this run: KPIs whose quiet spell began since the last notice. */
  quietKpis: number;
  /** Keys expiring within the widest threshold that the check looked at (revoked ones included). */
  keysChecked: number;
  /** `api_key.expiring` events published by this run. */
  expiringKeys: number;
  /** Events whose publishing failed; their record is taken back, so the next run tries again. */
  failed: number;
}

interface Deps {
  db: Database;
  publish: Publish;
  /** The time of the run, in ms since the epoch. */
  now: number;
}

/**
 * What became of an alert; `rescheduled`: nothing to send, the KPI's entry moved; undefined: nothing
 * was due, or another check sent it or moved it.
 */
type Outcome = 'published' | 'failed' | 'rescheduled' | undefined;

/**
 * Records an alert, then publishes it; a failed publish takes the record back. The record is a
 * conditional write, so of several checks running at once exactly one publishes each alert.
 */
const notify = async (
  record: () => Promise<boolean>,
  event: WebhookEvent,
  { publish }: Deps,
  forget: () => Promise<unknown>,
): Promise<Outcome> => {
  if (!(await record())) return undefined;
  try {
    await publish(event);
    return 'published';
  } catch {
    await forget();
    return 'failed';
  }
};

/** Runs `each` over `items`, at most READS_AT_ONCE at a time, in order. */
const inSlices = async <T, R>(items: T[], each: (item: T) => Promise<R>): Promise<R[]> => {
  // Stryker disable next-line ArrayDeclaration: the check counts only published and failed outcomes.
  const results: R[] = [];
  // Stryker disable next-line EqualityOperator: the slices bound only how many reads run at once, which no outcome shows.
  for (let start = 0; start < items.length; start += READS_AT_ONCE) {
    // Stryker disable next-line MethodExpression: as above, the slice bounds only how many run at once.
    results.push(...(await Promise.all(items.slice(start, start + READS_AT_ONCE).map(each))));
  }
  return results;
};

/**
 * Looks at a KPI whose entry is due: its newest arrivals say whether it is quiet. One that is not
 * moves to the moment it would go quiet; one that is, is notified once per spell; either way a quiet
 * one is looked at again a cadence and grace later, the earliest its next spell can begin. The entry
 * is never later than the KPI goes quiet, since a push only ever moves that moment on.
 */
const checkKpi = async (deps: Deps, { kpi, quietNotifiedFor, entry }: DueKpi): Promise<Outcome> => {
  const recent = await listRecentMeasurements(deps.db, kpi.id, RECENT_MEASUREMENTS);
  const arrivals = kpiArrivals(kpi, recent, deps.now);
  // A KPI whose cadence went while it was read: the settings change took its entry out.
  if (arrivals.quietSince === null) return undefined;
  const reschedule = async (at: number): Promise<Outcome> =>
    (await moveQuietEntry(deps.db, kpi.id, entry, at)) ? 'rescheduled' : undefined;
  if (!arrivals.quiet) return reschedule(Date.parse(arrivals.quietSince));
  const nextLook = Date.parse(
    kpiQuietness(kpi, new Date(deps.now).toISOString(), deps.now).quietSince as string,
  );
  const spell = arrivals.lastMeasurementAt ?? NEVER;
  // Notified already, as the index says: only the entry moves on.
  if (quietNotifiedFor === spell) return reschedule(nextLook);
  return notify(
    () => recordQuietSpell(deps.db, kpi.id, spell, entry, nextLook),
    {
      type: 'kpi.quiet',
      tenantId: kpi.tenantId,
      occurredAt: arrivals.quietSince,
      data: {
        kpiId: kpi.id,
        name: kpi.name,
        cadence: kpi.cadence,
        graceHours: kpi.graceHours,
        lastMeasurementAt: arrivals.lastMeasurementAt,
        quietSince: arrivals.quietSince,
      },
    },
    deps,
    () => forgetQuietSpell(deps.db, kpi.id, spell, deps.now),
  );
};

const checkKey = async (deps: Deps, { key, keyHash, noticeDays }: ExpiringKey): Promise<Outcome> => {
  // Checked by the conditional write too; checked here first, so a run spends no write on them.
  if (key.revokedAt !== null || key.replacedBy !== null) return undefined;
  const left = Date.parse(key.expiresAt) - deps.now;
  // Stryker disable next-line EqualityOperator: the index's range starts now, so no key has 0 left.
  if (left <= 0) return undefined;
  const due = EXPIRY_NOTICE_DAYS.filter((days) => left <= days * DAY_MS).at(-1);
  if (due === undefined || (noticeDays !== null && noticeDays <= due)) return undefined;
  return notify(
    () => recordExpiryNotice(deps.db, keyHash, due, key.expiresAt),
    {
      type: 'api_key.expiring',
      tenantId: key.tenantId,
      occurredAt: new Date(deps.now).toISOString(),
      data: {
        keyId: key.id,
        name: key.name,
        prefix: key.prefix,
        expiresAt: key.expiresAt,
        daysLeft: Math.ceil(left / DAY_MS),
      },
    },
    deps,
    () => forgetExpiryNotice(deps.db, keyHash, due, noticeDays),
  );
};

/**
 * The scheduled alert check (every 15 minutes in production): publishes `kpi.quiet` once per quiet
 * spell of each KPI with a cadence, and `api_key.expiring` once per threshold (7 days, 1 day) of each
 * key that is neither revoked nor replaced. Reads are range Queries only (lib/db/alerts.ts): the KPIs
 * whose entry is due (one Query per shard), then each one's newest measurements; the keys expiring
 * within 7 days, by day bucket. So a run costs what is due, never what the platform holds. A run that
 * comes late, or after missed runs, sends what is due then; a run at the same time as another sends
 * nothing twice.
 */
export const runAlertCheck = async (deps: Deps): Promise<AlertCheckResult> => {
  const widest = Math.max(...EXPIRY_NOTICE_DAYS) * DAY_MS;
  const [{ due: kpis, more }, expiring] = await Promise.all([
    kpisDueForCheck(deps.db, deps.now, DUE_KPIS_PER_SHARD),
    keysExpiringBetween(deps.db, deps.now, deps.now + widest),
  ]);
  const [kpiOutcomes, keyOutcomes] = await Promise.all([
    inSlices(kpis, (kpi) => checkKpi(deps, kpi)),
    inSlices(expiring, (key) => checkKey(deps, key)),
  ]);
  const count = (outcomes: Outcome[], outcome: Outcome) => outcomes.filter((o) => o === outcome).length;
  return {
    kpisChecked: kpis.length,
    kpisRescheduled: count(kpiOutcomes, 'rescheduled'),
    kpisDeferred: more,
    quietKpis: count(kpiOutcomes, 'published'),
    keysChecked: expiring.length,
    expiringKeys: count(keyOutcomes, 'published'),
    failed: count(kpiOutcomes, 'failed') + count(keyOutcomes, 'failed'),
  };
};

/**
 * Puts every key that still expires, of every tenant, into the expiry index the check reads: for keys
 * created before the index existed (a key made since is indexed when it is made). Queries only (the
 * tenant list, then each tenant's keys) and one conditional update per key not indexed yet, so it can
 * run again at any time. Answers how many keys it indexed.
 */
export const indexExistingKeyExpiries = async (db: Database, now: number): Promise<number> => {
  let indexed = 0;
  let cursor: string | undefined;
  do {
    const tenants = await listTenants(db, { limit: 1000, cursor });
    for (const tenant of tenants.items) {
      for (const { key, keyHash } of await allApiKeysOf(db, tenant.id)) {
        const { expiresAt } = key;
        if (expiresAt === null || Date.parse(expiresAt) <= now) continue;
        if (key.revokedAt !== null || key.replacedBy !== null) continue;
        if (await indexKeyExpiry(db, keyHash, key.id, expiresAt)) indexed++;
      }
    }
    cursor = tenants.nextCursor;
  } while (cursor);
  return indexed;
};
