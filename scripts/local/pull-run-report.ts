/**
 * What `npm run pull:run` prints: a line per integration it ran or skipped, then the scheduler's and
 * the webhook deliveries' counts. `--json` prints the same as one JSON line, for scripts.
 */
import type { SchedulerResult } from '../../lib/pull/scheduler';

export type RunLine =
  | {
      integrationId: string;
      name: string | null;
      outcome: string;
      httpStatus: number | null;
      errorClass: string | null;
      error: string | null;
      stored: number;
    }
  | { skipped: 'malformed' | 'gone' | 'not-claimed' | 'feature-off' };

export interface PullRunReport {
  scheduler: SchedulerResult;
  runs: RunLine[];
  webhookDeliveries: { received: number; done: number; retried: number };
}

const SKIPPED: Record<Extract<RunLine, { skipped: string }>['skipped'], string> = {
  'not-claimed': 'skipped a queued run: its slot was run or changed meanwhile',
  gone: 'skipped a queued run: its integration was deleted or disabled',
  'feature-off': "skipped a queued run: the tenant's plan no longer includes pull integrations",
  malformed: 'skipped an unreadable queue message',
};

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export const reportLines = ({ scheduler, runs, webhookDeliveries }: PullRunReport): string[] => {
  const lines = runs.map((run) => {
    if ('skipped' in run) return `- ${SKIPPED[run.skipped]}`;
    const name = run.name === null ? run.integrationId : `"${run.name}" (${run.integrationId})`;
    const answer = run.httpStatus === null ? 'no answer' : `HTTP ${run.httpStatus}`;
    const why = run.error === null ? '' : `: ${run.errorClass ? `${run.errorClass}, ` : ''}${run.error}`;
    return `- ${name}: ${run.outcome}, ${plural(run.stored, 'measurement')} stored (${answer})${why}`;
  });
  const summary =
    scheduler.due === 0
      ? 'No integration was due.'
      : `${plural(scheduler.due, 'integration')} due, ${scheduler.claimed} claimed and run${
          scheduler.deferred > 0 ? `, ${scheduler.deferred} left for the next pass` : ''
        }${scheduler.failed > 0 ? `, ${scheduler.failed} not queued (due again after the lease)` : ''}.`;
  const webhooks =
    webhookDeliveries.received === 0
      ? []
      : [`Webhook events: ${webhookDeliveries.done} delivered, ${webhookDeliveries.retried} to retry.`];
  return [summary, ...lines, ...webhooks];
};
