import * as z from 'zod/mini';
import type { Database } from '../db/client';
import { claimSlot, type DueEntry, dueIntegrations } from '../db/pull-integrations';
import { logger } from '../logger';
import type { Queue } from '../webhooks/queue';

/**
 * The pull scheduler's pass: it finds the due integrations and hands each due slot to the worker
 * (./run.ts), and calls no tenant URL itself, so its function carries neither the egress guard nor
 * any secret.
 */

/** What the scheduler hands the worker for one due slot. */
export const runMessageSchema = z.object({
  tenantId: z.string(),
  integrationId: z.string(),
  slot: z.string(),
});
export type RunMessage = z.output<typeof runMessageSchema>;

/** How long a claimed slot waits for its run before it is due again (a lost message, a crashed worker). */
export const LEASE_MS = 15 * 60_000;

/** Most claims one pass makes at once. */
const CLAIMS_AT_ONCE = 25;

/**
 * Most slots of one tenant one pass claims; the others stay due and are read again by the next pass,
 * a minute later. 50 a minute runs the 500 15-minute integrations of an Enterprise plan every 15 minutes.
 */
export const CLAIMS_PER_TENANT_PER_PASS = 50;

/**
 * The due entries in turns, so that one tenant's many due slots cannot delay another's: each tenant's
 * oldest slot first (tenants in the order of their oldest due slot), then each one's second, and so
 * on, at most `perTenant` of each; the rest are deferred to the next pass.
 */
export const inTurns = (due: readonly DueEntry[], perTenant: number) => {
  const byTenant = new Map<string, DueEntry[]>();
  for (const entry of due) {
    const own = byTenant.get(entry.tenantId);
    if (own) own.push(entry);
    else byTenant.set(entry.tenantId, [entry]);
  }
  const turns: DueEntry[] = [];
  const queues = [...byTenant.values()];
  for (let turn = 0; turn < perTenant; turn++) {
    for (const own of queues) {
      const entry = own[turn];
      if (entry) turns.push(entry);
    }
  }
  return { turns, deferred: due.length - turns.length };
};

export interface SchedulerResult {
  /** Integrations the index said were due. */
  due: number;
  /** Slots this pass claimed and handed to the worker. */
  claimed: number;
  /** Slots another pass had claimed first. */
  skipped: number;
  /** Claimed slots whose message could not be sent: due again after the lease. */
  failed: number;
  /** Due slots left for the next pass: their tenant had CLAIMS_PER_TENANT_PER_PASS turns in this one. */
  deferred: number;
}

/**
 * One pass of the scheduler: the due integrations (a range Query per shard of the sparse index, never
 * a Scan, at most `perShard` each), each
 * slot claimed with a conditional write, so that of two passes at once exactly one hands it to the
 * worker, one message per slot: one slow source never delays another. Slots are claimed and handed
 * over in turns of the tenants (`inTurns`), at most CLAIMS_PER_TENANT_PER_PASS of a tenant per pass.
 */
export const schedulePass = async ({
  db,
  queue,
  now,
  perShard,
  perTenant = CLAIMS_PER_TENANT_PER_PASS,
}: {
  db: Database;
  queue: Queue;
  now: number;
  /** Due entries one pass reads of each shard of the index at most (default 100); the rest wait for the next. */
  perShard?: number;
  /** Slots of one tenant this pass claims at most. */
  perTenant?: number;
}): Promise<SchedulerResult> => {
  const due = await dueIntegrations(db, now, perShard);
  const { turns, deferred } = inTurns(due, perTenant);
  const leaseUntil = new Date(now + LEASE_MS).toISOString();
  const result: SchedulerResult = { due: due.length, claimed: 0, skipped: 0, failed: 0, deferred };
  const claim = async (entry: DueEntry) => {
    if (!(await claimSlot(db, entry, leaseUntil))) {
      result.skipped++;
      return;
    }
    const message: RunMessage = {
      tenantId: entry.tenantId,
      integrationId: entry.integrationId,
      slot: entry.entry,
    };
    try {
      await queue.send(JSON.stringify(message));
      result.claimed++;
    } catch (error) {
      logger.error(
        'a due pull integration was not handed to the worker; due again after the lease',
        error as Error,
      );
      result.failed++;
    }
  };
  // Stryker disable next-line EqualityOperator: one more turn claims an empty slice, nothing
  for (let start = 0; start < turns.length; start += CLAIMS_AT_ONCE) {
    await Promise.all(turns.slice(start, start + CLAIMS_AT_ONCE).map(claim));
  }
  return result;
};
