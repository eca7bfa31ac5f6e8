import { describe, expect, it } from 'vitest';
import { type PullRunReport, reportLines } from '../../../scripts/local/pull-run-report';

/** `npm run pull:run` prints a human summary per integration (the JSON with --json). */
describe('what npm run pull:run prints', () => {
  const scheduler = { due: 3, claimed: 3, skipped: 0, failed: 0, deferred: 0 };
  const webhookDeliveries = { received: 0, done: 0, retried: 0 };

  it('says per integration what it did, and why it failed, and skipped runs in words', () => {
    const report: PullRunReport = {
      scheduler,
      runs: [
        {
          integrationId: 'i1',
          name: 'Support desk backlog',
          outcome: 'stored',
          httpStatus: 200,
          errorClass: null,
          error: null,
          stored: 1,
        },
        {
          integrationId: 'i2',
          name: null,
          outcome: 'failed',
          httpStatus: null,
          errorClass: 'connection',
          error: 'the connection to the source failed',
          stored: 0,
        },
        { skipped: 'not-claimed' },
      ],
      webhookDeliveries: { received: 1, done: 1, retried: 0 },
    };
    expect(reportLines(report)).toEqual([
      '3 integrations due, 3 claimed and run.',
      '- "Support desk backlog" (i1): stored, 1 measurement stored (HTTP 200)',
      '- i2: failed, 0 measurements stored (no answer): connection, the connection to the source failed',
      '- skipped a queued run: its slot was run or changed meanwhile',
      'Webhook events: 1 delivered, 0 to retry.',
    ]);
    expect(reportLines(report).join('\n')).not.toContain('{');
  });

  it('says when nothing was due, and what is left for the next pass', () => {
    expect(
      reportLines({ scheduler: { ...scheduler, due: 0, claimed: 0 }, runs: [], webhookDeliveries }),
    ).toEqual(['No integration was due.']);
    expect(
      reportLines({
        scheduler: { ...scheduler, due: 1, claimed: 0, deferred: 1, failed: 1 },
        runs: [],
        webhookDeliveries,
      })[0],
    ).toBe(
      '1 integration due, 0 claimed and run, 1 left for the next pass, 1 not queued (due again after the lease).',
    );
  });
});
