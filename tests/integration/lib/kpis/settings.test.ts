import { describe, expect, it } from 'vitest';
import { getKpiOfTenant } from '../../../../lib/db/kpis';
import { updateKpi } from '../../../../lib/kpis/settings';
import { cancelled } from '../../../support/faults';
import { createTestTenant, db } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

/**
 * A KPI's settings change is conditioned on the version it read: a concurrent change cancels it, and
 * it is decided again from a fresh read, a bounded number of times.
 */
const conflicting = (times: number) =>
  instrument(db, (command, nth) => {
    if (command.name === 'TransactWriteItemsCommand' && nth < times) {
      throw cancelled('ConditionalCheckFailed', 'None');
    }
    return undefined;
  });

describe('a KPI settings change that meets a concurrent one', () => {
  it('is read and decided again, and written once', async () => {
    const tenant = await createTestTenant({ kpiTypes: ['THEME_KPI'] });
    const [kpi] = tenant.kpis;
    const probe = conflicting(2);
    const updated = await updateKpi(probe.db, tenant.tenant.id, kpi!.id, { cadence: 'weekly' });
    expect(updated?.cadence).toBe('weekly');
    expect(probe.calls.filter(({ command }) => command === 'TransactWriteItemsCommand')).toHaveLength(3);
  });

  it('gives up when it keeps losing, asking the caller to retry (503), having written nothing', async () => {
    const tenant = await createTestTenant({ kpiTypes: ['THEME_KPI'] });
    const [kpi] = tenant.kpis;
    const error = await updateKpi(conflicting(Number.POSITIVE_INFINITY).db, tenant.tenant.id, kpi!.id, {
      cadence: 'weekly',
    }).then(
      () => expect.unreachable('written'),
      (e: unknown) => e as Error,
    );
    expect(error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'Too many concurrent KPI changes; retry.',
    });
    expect((await getKpiOfTenant(db, tenant.tenant.id, kpi!.id))?.cadence).toBe(kpi!.cadence);
  });
});
