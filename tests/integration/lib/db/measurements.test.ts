import { describe, expect, it } from 'vitest';
import { latestWithTarget } from '../../../../lib/db/measurements';
import { createTestTenant, db, putMeasurement } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

/**
 * What a KPI's status is measured on: the newest measurement with a target among its `within` newest
 * periods, read newest first, 25 periods a page, and never further back than `within`.
 */
const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

const kpiWith = async (periods: number, withTarget: number[]) => {
  const tenant = await createTestTenant({ kpiTypes: ['THEME_KPI'] });
  const kpi = tenant.kpis[0]!;
  for (let n = 0; n < periods; n++) {
    await putMeasurement(kpi, day(n), day(n), n, withTarget.includes(n) ? { target: 100 + n } : {});
  }
  return kpi;
};

describe('the newest measurement with a target', () => {
  it('is the newest of those with one, read a page of 25 at a time down to `within` periods back', async () => {
    // 40 daily periods, 0 the oldest; targets on 3 and 8, the 37th and the 32nd newest.
    const kpi = await kpiWith(40, [3, 8]);
    const probe = instrument(db);
    expect((await latestWithTarget(probe.db, kpi.id, 33))?.target).toBe(108);
    expect(probe.calls.map(({ input }) => [input.Limit, input.ScanIndexForward])).toEqual([
      [25, false],
      [8, false],
    ]);
    probe.reset();
    // Within the 31 newest there is none: the read stops at the 31st.
    expect(await latestWithTarget(probe.db, kpi.id, 31)).toBeUndefined();
    expect(probe.calls.map(({ input }) => input.Limit)).toEqual([25, 6]);
    probe.reset();
    // Within exactly one page: one read, however many periods lie further back.
    expect(await latestWithTarget(probe.db, kpi.id, 25)).toBeUndefined();
    expect(probe.calls.map(({ input }) => input.Limit)).toEqual([25]);
  });

  it('is undefined when the KPI has fewer periods than `within` and none has a target', async () => {
    const kpi = await kpiWith(3, []);
    const probe = instrument(db);
    expect(await latestWithTarget(probe.db, kpi.id, 50)).toBeUndefined();
    // The list ended on the first page: no second read.
    expect(probe.calls).toHaveLength(1);
  });
});
