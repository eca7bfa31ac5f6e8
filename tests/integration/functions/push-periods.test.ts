import { beforeAll, describe, expect, it } from 'vitest';
import { handler as singleHandler } from '../../../functions/push-measurement';
import { createKpi } from '../../../lib/db/kpis';
import type { Kpi } from '../../../lib/domain/kpi';
import { currentPeriod } from '../../../lib/domain/period';
import { createGateway } from '../../support/api-gateway';
import { createRawKey, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { measurementFor, pushBatch, pushOne, storedMeasurements } from '../../support/push';

/** A measurement is one whole period of its KPI: the default period, the refusal, batches, dry runs. */
let tenant: TestTenant;
let key: string;
let weekly: Kpi;
let quarterly: Kpi;
beforeAll(async () => {
  tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI'] });
  key = await createRawKey(tenant.tenant.id);
  weekly = await createKpi(db, tenant.tenant.id, { type: 'BSC_KPI', name: 'Weekly', period: 'week' });
  quarterly = await createKpi(db, tenant.tenant.id, {
    type: 'BSC_KPI',
    name: 'Quarterly',
    period: 'quarter',
  });
});

const gateway = createGateway();
const dryRun = (body: unknown) =>
  gateway.invoke(singleHandler, {
    method: 'POST',
    path: '/api/integrations/push/measurement',
    headers: { 'x-api-key': key },
    query: { dryRun: 'true' },
    body,
  });

describe('a push without a period lands in its KPI’s current period', () => {
  it('a weekly KPI: this ISO week, Monday to Sunday (UTC); a monthly one: this month', async () => {
    const week = currentPeriod('week', Date.now());
    const pushed = await pushOne(key, measurementFor(weekly, { actual: 7 }));
    expect(pushed.status).toBe(201);
    expect(pushed.body).toMatchObject({ ...week, actual: 7 });
    const monthly = await pushOne(key, measurementFor(tenant.kpis[0]!, { actual: 8 }));
    expect(monthly.body).toMatchObject(currentPeriod('month', Date.now()));
    expect((await storedMeasurements(tenant, weekly.id)).map((m) => [m.periodStart, m.periodEnd])).toEqual([
      [week.periodStart, week.periodEnd],
    ]);
  });

  it('one bound of a weekly KPI names its week', async () => {
    const pushed = await pushOne(key, measurementFor(weekly, { periodStart: '2026-11-23' }));
    expect(pushed.body).toMatchObject({ periodStart: '2026-11-23', periodEnd: '2026-11-29' });
  });

  it('a batch and a dry run find the stored record of the week they land in: "updated", same id', async () => {
    const first = await pushBatch(key, [measurementFor(weekly, { actual: 1 })]);
    const again = await pushBatch(key, [measurementFor(weekly, { actual: 2 })]);
    expect(again.status).toBe(200);
    expect(again.body.items[0]).toMatchObject({
      status: 'updated',
      measurement: { id: first.body.items[0].measurement.id, actual: 2 },
    });
    const planned = await dryRun(measurementFor(weekly, { actual: 3 }));
    expect(planned.body).toMatchObject({
      status: 'updated',
      measurement: { id: first.body.items[0].measurement.id },
    });
  });
});

describe('a span that is not one whole period of its KPI is 400, naming the period and the dates', () => {
  it('a month for a weekly KPI: the week that holds periodStart is expected', async () => {
    const refused = await pushOne(
      key,
      measurementFor(weekly, { periodStart: '2026-12-01', periodEnd: '2026-12-31' }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.type).toMatch(/validation-failed$/);
    expect(refused.body.errors).toEqual([
      {
        path: 'periodStart',
        message: expect.stringMatching(/period is week.*periodStart 2026-11-30 and periodEnd 2026-12-06/),
      },
    ]);
    expect(refused.body.expectedPeriods).toEqual([
      {
        path: '(body)',
        kpiId: weekly.id,
        period: 'week',
        periodStart: '2026-11-30',
        periodEnd: '2026-12-06',
      },
    ]);
  });

  it('a quarter for a monthly KPI, a month for a quarterly one', async () => {
    const month = await pushOne(
      key,
      measurementFor(tenant.kpis[0]!, { periodStart: '2026-07-01', periodEnd: '2026-09-30' }),
    );
    expect(month.status).toBe(400);
    expect(month.body.expectedPeriods[0]).toMatchObject({
      period: 'month',
      periodStart: '2026-07-01',
      periodEnd: '2026-07-31',
    });
    const quarter = await pushOne(
      key,
      measurementFor(quarterly, { periodStart: '2026-07-01', periodEnd: '2026-07-31' }),
    );
    expect(quarter.body.errors[0].path).toBe('periodEnd');
    expect(quarter.body.expectedPeriods[0]).toMatchObject({
      period: 'quarter',
      periodStart: '2026-07-01',
      periodEnd: '2026-09-30',
    });
  });

  it('a batch with one such element stores nothing, and names the element', async () => {
    const before = await storedMeasurements(tenant, quarterly.id);
    const refused = await pushBatch(key, [
      measurementFor(quarterly, { periodStart: '2025-01-01', periodEnd: '2025-03-31' }),
      measurementFor(weekly, { periodStart: '2025-01-01', periodEnd: '2025-01-31' }),
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      { path: 'measurements[1].periodStart', message: expect.any(String) },
    ]);
    expect(refused.body.expectedPeriods).toEqual([
      {
        path: 'measurements[1]',
        kpiId: weekly.id,
        period: 'week',
        periodStart: '2024-12-30',
        periodEnd: '2025-01-05',
      },
    ]);
    expect(await storedMeasurements(tenant, quarterly.id)).toEqual(before);
  });

  it('two elements that land on the same period are 400 naming both', async () => {
    const week = currentPeriod('week', Date.now());
    const refused = await pushBatch(key, [measurementFor(weekly), measurementFor(weekly, { ...week })]);
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'measurements[0]',
      'measurements[1]',
    ]);
  });
});
