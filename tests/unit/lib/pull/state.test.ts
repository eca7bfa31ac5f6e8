import { describe, expect, it } from 'vitest';
import { stateAfter } from '../../../../lib/pull/run';

/** An integration's state after a run (lib/pull/run.ts `stateAfter`), on a clock of the test's own. */
const AT = Date.parse('2026-11-27T10:00:00.000Z');
const run = (outcome: 'stored' | 'partial' | 'failed') => ({
  id: 'r1',
  startedAt: new Date(AT - 1000).toISOString(),
  durationMs: 1000,
  httpStatus: outcome === 'failed' ? 503 : 200,
  outcome,
  errorClass: outcome === 'failed' ? ('http_status' as const) : null,
});
const failing = {
  status: 'failing' as const,
  consecutiveFailures: 5,
  failingSince: '2026-11-27T01:00:00.000Z',
  disabledAt: null,
  schedule: { every: 'hour' as const },
};

describe('the state after a run', () => {
  it('is active again after a run that stored anything, with the failures forgotten and the next regular slot', () => {
    for (const outcome of ['stored', 'partial'] as const) {
      expect(stateAfter(failing, run(outcome), AT), outcome).toEqual({
        status: 'active',
        consecutiveFailures: 0,
        failingSince: null,
        disabledAt: null,
        lastRun: { ...run(outcome) },
        nextRunAt: '2026-11-27T11:00:00.000Z',
      });
    }
  });

  it('stays disabled after a failed run of a disabled integration (run by hand), keeping when it was disabled', () => {
    const disabled = { ...failing, status: 'disabled' as const, disabledAt: '2026-11-27T05:00:00.000Z' };
    expect(stateAfter(disabled, run('failed'), AT)).toMatchObject({
      status: 'disabled',
      consecutiveFailures: 6,
      failingSince: failing.failingSince,
      disabledAt: '2026-11-27T05:00:00.000Z',
      nextRunAt: null,
    });
  });

  it('is failing from the third failure in a row, and disabled once failing 24 hours, from that moment', () => {
    const active = { ...failing, status: 'active' as const, consecutiveFailures: 1, failingSince: null };
    expect(stateAfter(active, run('failed'), AT)).toMatchObject({ status: 'active', consecutiveFailures: 2 });
    expect(stateAfter({ ...active, consecutiveFailures: 2 }, run('failed'), AT)).toMatchObject({
      status: 'failing',
      consecutiveFailures: 3,
      failingSince: run('failed').startedAt,
    });
    const since = { ...failing, failingSince: new Date(AT - 86_400_000).toISOString() };
    expect(stateAfter(since, run('failed'), AT)).toMatchObject({
      status: 'disabled',
      disabledAt: new Date(AT).toISOString(),
      nextRunAt: null,
    });
    expect(stateAfter(since, run('failed'), AT - 1)).toMatchObject({ status: 'failing', disabledAt: null });
  });

  it('needs both: the third failure in a row and 24 hours of failing', () => {
    const dayAgo = new Date(AT - 86_400_000).toISOString();
    const third = { ...failing, status: 'active' as const, consecutiveFailures: 2, failingSince: dayAgo };
    expect(stateAfter(third, run('failed'), AT)).toMatchObject({
      status: 'disabled',
      consecutiveFailures: 3,
    });
    const first = { ...third, consecutiveFailures: 0 };
    expect(stateAfter(first, run('failed'), AT)).toMatchObject({
      status: 'active',
      consecutiveFailures: 1,
      disabledAt: null,
    });
  });
});
