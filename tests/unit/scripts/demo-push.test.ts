import { describe, expect, it } from 'vitest';
import { dataFolderHint } from '../../../scripts/local-data';
import { ACME_REVENUE } from '../../../scripts/seed';
import { historyMeasurements } from '../../../scripts/seed-history';

/**
 * `npm run demo:push` (and the quick start) pushes this month's revenue without a period, so the
 * service stores it for the current month (UTC): the demo history must end before it, so that the
 * push adds a point and replaces none of the seeded ones.
 */
describe('npm run demo:push leaves the demo data as it was seeded', () => {
  it.each([
    '2026-11-25T13:00:00Z',
    '2026-12-01T00:30:00Z', // just after a month began, before "last month" was pushed
    '2027-01-01T05:59:00Z',
    '2028-02-29T23:59:59Z',
  ])('at %s the revenue history ends before the current month', (at) => {
    const now = Date.parse(at);
    const monthStart = `${at.slice(0, 7)}-01`;
    const history = historyMeasurements({ id: 'kpi', type: 'BSC_KPI' }, ACME_REVENUE, now);
    expect(history.length).toBe(ACME_REVENUE.periods);
    for (const { measurement } of history) expect(measurement.periodEnd! < monthStart).toBe(true);
  });
});

/** demo:push reads the data folder LOCAL_DATA_DIR names: a stack started with another one is invisible to it. */
describe('npm run demo:push without a stack names LOCAL_DATA_DIR', () => {
  it('says how to give it the folder npm start was given', () => {
    expect(dataFolderHint('npm run demo:push', {})).toBe(
      'If npm start runs with LOCAL_DATA_DIR set, give this the same folder, e.g. LOCAL_DATA_DIR=.local-2 npm run demo:push.',
    );
    expect(dataFolderHint('npm run demo:push', { LOCAL_DATA_DIR: '.local-x' })).toContain(
      'This read LOCAL_DATA_DIR=.local-x',
    );
  });
});
