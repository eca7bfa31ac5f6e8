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

export interface SchedulerResult {
  /** Integrations the index said were due. */
  due: number;
  /** Slots this pass claimed and handed to the worker. */
  claimed: number;
  /** Slots another pass had claimed first. */
  skipped: number;
  /** Claimed slots whose message could not be sent: due again after the lease. */
  failed: number;
}

/**
 * One pass of the scheduler: the due integrations (Queries of the sparse index, never a Scan), each
 * slot claimed with a conditional write, so that of two passes at once exactly one hands it to the
 * worker, one message per slot: one slow source never delays another.
 */
export const schedulePass = async ({
  db,
  queue,
  now,
  pageSize,
}: {
  db: Database;
  queue: Queue;
  now: number;
  /** Due entries per Query (default 100). */
  pageSize?: number;
}): Promise<SchedulerResult> => {
  const due = await dueIntegrations(db, now, pageSize);
  const leaseUntil = new Date(now + LEASE_MS).toISOString();
  const result: SchedulerResult = { due: due.length, claimed: 0, skipped: 0, failed: 0 };
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
  for (let start = 0; start < due.length; start += CLAIMS_AT_ONCE) {
    await Promise.all(due.slice(start, start + CLAIMS_AT_ONCE).map(claim));
  }
  return result;
};
