import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../../functions/get-kpi-projection';
import { keys } from '../../../lib/db/keys';
import { createStrategicCycle } from '../../../lib/db/strategic-cycles';
import type { Kpi } from '../../../lib/domain/kpi';
import { PROJECTION_HISTORY, readKpiProjection } from '../../../lib/kpis/projection';
import { invoke } from '../../support/events';
import { bearer, createTestTenant, db, putMeasurement, type TestTenant } from '../../support/fixtures';
import { instrument } from '../../support/instrumented-db';
import { describeJwtAuth } from '../../support/jwt-auth-cases';

const get = (kpiId: string, headers: Record<string, string>, query?: Record<string, string>) =>
  invoke(handler, {
    path: `/api/kpis/${kpiId}/projection`,
    resource: '/api/kpis/{kpiId}/projection',
    pathParameters: { kpiId },
    headers,
    query,
  });

/** Month i of 2024 onwards (0 is January 2024). */
const month = (i: number) => {
  const start = new Date(Date.UTC(2024, i, 1)).toISOString().slice(0, 10);
  const end = new Date(Date.UTC(2024, i + 1, 0)).toISOString().slice(0, 10);
  return [start, end] as const;
};

/** A rising series with a yearly swing: 24 months, January 2024 to December 2025. */
const values = Array.from({ length: 24 }, (_, t) => 100 + 2 * t + 8 * Math.sin((2 * Math.PI * t) / 12));

const pushHistory = async (kpi: Kpi, count: number, target?: number) => {
  for (let i = 0; i < count; i++)
    await putMeasurement(
      kpi,
      ...month(i),
      values[i] as number,
      i === count - 1 && target !== undefined ? { target } : {},
    );
};

const setKpi = (kpi: Kpi, fields: Record<string, unknown>) =>
  db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: keys.kpi(kpi.id),
      UpdateExpression: `SET ${Object.keys(fields)
        .map((f) => `#${f} = :${f}`)
        .join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(Object.keys(fields).map((f) => [`#${f}`, f])),
      ExpressionAttributeValues: Object.fromEntries(Object.entries(fields).map(([f, v]) => [`:${f}`, v])),
    }),
  );

let tenant: TestTenant;
let other: TestTenant;
let higher: Kpi;
let lower: Kpi;
let short: Kpi;
let qualitative: Kpi;
beforeAll(async () => {
  [tenant, other] = await Promise.all([
    createTestTenant({ kpiTypes: ['BSC_KPI', 'THEME_KPI', 'OKR_KEY_RESULT', 'SWOT_KPI'] }),
    createTestTenant({ kpiTypes: ['BSC_KPI'] }),
  ]);
  [higher, lower, short, qualitative] = tenant.kpis as [Kpi, Kpi, Kpi, Kpi];
  await setKpi(lower, { direction: 'lower_is_better' });
  await setKpi(qualitative, { qualitative: true });
  // A target well above where the KPI is heading: unlikely met when higher is better, likely when lower is.
  await Promise.all([
    pushHistory(higher, 24, 250),
    pushHistory(lower, 24, 250),
    pushHistory(short, 5, 120),
    pushHistory(qualitative, 24, 250),
  ]);
});

describe('GET /kpis/{kpiId}/projection', () => {
  it('projects every month to the end of the calendar year after the newest, for every role', async () => {
    for (const role of ['ADMIN', 'EDITOR', 'VIEWER'] as const) {
      const result = await get(higher.id, bearer(tenant.users[role].token));
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({
        kpiId: higher.id,
        period: 'month',
        basedOn: { count: 24, lastPeriod: '2025-12-01' },
        horizon: { until: 'year', cycleId: null },
        backtest: { periods: 12 },
      });
      expect(result.body.method).toEqual(expect.any(String));
      expect(result.body.reason).toBeUndefined();
      const { periods } = result.body;
      expect(periods).toHaveLength(12);
      expect(periods[0]).toMatchObject({ periodStart: '2026-01-01', periodEnd: '2026-01-31', target: 250 });
      expect(periods[11]).toMatchObject({ periodStart: '2026-12-01', periodEnd: '2026-12-31' });
      for (const p of periods) {
        expect(p.p10).toBeLessThan(p.p50);
        expect(p.p50).toBeLessThan(p.p90);
      }
    }
  });

  it('gives the probability in the KPI direction: at least the target when higher is better, at most it when lower is', async () => {
    const token = bearer(tenant.users.VIEWER.token);
    const [up, down] = await Promise.all([get(higher.id, token), get(lower.id, token)]);
    const pUp = up.body.periods[0].probability as number;
    const pDown = down.body.periods[0].probability as number;
    expect(pUp).toBeLessThan(0.05);
    expect(pDown).toBeGreaterThan(0.95);
    expect(pUp + pDown).toBeCloseTo(1, 9);
    // The same history, the same band: only the direction differs.
    expect(down.body.periods.map((p: { p50: number }) => p.p50)).toEqual(
      up.body.periods.map((p: { p50: number }) => p.p50),
    );
  });

  it('is deterministic: the same history gives the same answer', async () => {
    const token = bearer(tenant.users.VIEWER.token);
    const [a, b] = await Promise.all([get(higher.id, token), get(higher.id, token)]);
    expect(a.body).toEqual(b.body);
  });

  it('covers ?periods=N, at most 24; more, fewer than 1 or not a number is 400 naming periods', async () => {
    const token = bearer(tenant.users.VIEWER.token);
    const three = await get(higher.id, token, { periods: '3' });
    expect(three.status).toBe(200);
    expect(three.body.periods).toHaveLength(3);
    expect(three.body.horizon).toEqual({ until: 'requested', cycleId: null });
    expect((await get(higher.id, token, { periods: '24' })).body.periods).toHaveLength(24);
    for (const periods of ['25', '0', 'x', '2.5']) {
      const result = await get(higher.id, token, { periods });
      expect(result.status).toBe(400);
      expect(JSON.stringify(result.body)).toContain('periods');
    }
  });

  it('runs to the end of the strategic cycle that holds the next period', async () => {
    const cycle = await createStrategicCycle(db, tenant.tenant.id, {
      name: 'Second half',
      startDate: '2025-07-01',
      endDate: '2026-03-31',
    });
    const result = await get(higher.id, bearer(tenant.users.VIEWER.token));
    expect(result.body.horizon).toEqual({ until: 'cycle', cycleId: cycle.id });
    expect(result.body.periods.map((p: { periodStart: string }) => p.periodStart)).toEqual([
      '2026-01-01',
      '2026-02-01',
      '2026-03-01',
    ]);
  });

  it('answers 200 with no periods and a reason with fewer than 6 periods', async () => {
    const result = await get(short.id, bearer(tenant.users.VIEWER.token));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      method: null,
      basedOn: { count: 5, lastPeriod: '2024-05-01' },
      periods: [],
      reason: 'A projection needs at least 6 consecutive periods of history; this KPI has 5.',
    });
    expect(result.body.backtest).toBeUndefined();
  });

  it('gives a qualitative KPI no projection, and says so', async () => {
    const result = await get(qualitative.id, bearer(tenant.users.VIEWER.token));
    expect(result.status).toBe(200);
    expect(result.body.method).toBeNull();
    expect(result.body.periods).toEqual([]);
    expect(result.body.reason).toMatch(/qualitative/);
  });

  it('is 404 for another tenant’s KPI, like a missing one', async () => {
    const result = await get(other.kpis[0]!.id, bearer(tenant.users.VIEWER.token));
    expect(result.status).toBe(404);
    const mine = await get(higher.id, bearer(other.users.ADMIN.token));
    expect(mine.status).toBe(404);
  });

  it('reads the KPI, one Query of at most 200 measurements and one of the cycles: one round trip', async () => {
    const { db: counted, calls, rounds } = instrument(db);
    await readKpiProjection(counted, tenant.tenant.id, higher.id, undefined);
    expect(calls.map((c) => c.command).sort()).toEqual(['GetItemCommand', 'QueryCommand', 'QueryCommand']);
    const measurementQueries = calls.filter(
      (c) => c.command === 'QueryCommand' && c.input.ExpressionAttributeValues[':pk'] === `KPI#${higher.id}`,
    );
    expect(measurementQueries).toHaveLength(1);
    expect(measurementQueries[0]?.input.Limit).toBe(PROJECTION_HISTORY);
    expect(rounds()).toBe(1);
  });
});

describeJwtAuth('GET /kpis/{kpiId}/projection', (headers, owner) => get(owner.kpis[0]!.id, headers));
