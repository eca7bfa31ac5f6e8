import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getKpi } from '../../../functions/get-kpi';
import { handler as listKpis } from '../../../functions/list-kpis';
import { handler } from '../../../functions/update-kpi';
import { invoke } from '../../support/events';
import { bearer, createRawKey, createTestTenant, type TestTenant } from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { measurementFor, pushBatch } from '../../support/push';

const patch = (kpiId: string, headers: Record<string, string>, body: unknown) =>
  invoke(handler, {
    method: 'PATCH',
    path: `/api/kpis/${kpiId}`,
    resource: '/api/kpis/{kpiId}',
    pathParameters: { kpiId },
    headers,
    body,
  });
const statusOf = async (tenant: TestTenant, kpiId: string) =>
  (
    await invoke(getKpi, {
      path: `/api/kpis/${kpiId}`,
      pathParameters: { kpiId },
      headers: bearer(tenant.users.VIEWER.token),
    })
  ).body.status;

const period = (month: number) => {
  const start = new Date(Date.UTC(2025, month, 1));
  const end = new Date(Date.UTC(2025, month + 1, 0));
  return { periodStart: start.toISOString().slice(0, 10), periodEnd: end.toISOString().slice(0, 10) };
};

let tenant: TestTenant;
let other: TestTenant;
let key: string;
beforeAll(async () => {
  [tenant, other] = await Promise.all([
    createTestTenant({ kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT', 'THEME_KPI'] }),
    createTestTenant({ kpiTypes: ['BSC_KPI'] }),
  ]);
  key = await createRawKey(tenant.tenant.id);
});

describe('KPI status in GET /kpis/{kpiId} and GET /kpis?include=activity', () => {
  it('is measured on the newest measurement with a target, and names it', async () => {
    const kpi = tenant.kpis[0]!;
    const pushed = await pushBatch(key, [
      measurementFor(kpi, { ...period(0), actual: 100, target: 100 }),
      measurementFor(kpi, { ...period(1), actual: 91, target: 100 }),
      measurementFor(kpi, { ...period(2), actual: 50 }), // the newest, without a target
    ]);
    expect(pushed.status).toBe(200);
    const status = await statusOf(tenant, kpi.id);
    expect(status).toEqual({
      value: 'at_risk',
      measurement: {
        id: pushed.body.items[1].measurement.id,
        ...period(1),
        actual: 91,
        target: 100,
      },
      targetSource: 'measurement',
    });
    const listed = await invoke(listKpis, {
      path: '/api/kpis',
      headers: bearer(tenant.users.VIEWER.token),
      query: { include: 'activity' },
    });
    const item = listed.body.items.find((k: { id: string }) => k.id === kpi.id);
    expect(item.status).toEqual(status);
    // Without ?include=activity, the list reads no measurement and carries no status.
    const plain = await invoke(listKpis, { path: '/api/kpis', headers: bearer(tenant.users.VIEWER.token) });
    expect(plain.body.items.find((k: { id: string }) => k.id === kpi.id).status).toBeUndefined();
  });

  it('looks past the 8 newest periods for a target, and is no_target when none has one', async () => {
    const kpi = tenant.kpis[1]!;
    const batch = Array.from({ length: 12 }, (_, month) =>
      measurementFor(kpi, { ...period(month), actual: 5, ...(month === 0 ? { target: 4 } : {}) }),
    );
    expect((await pushBatch(key, batch)).status).toBe(200);
    expect(await statusOf(tenant, kpi.id)).toMatchObject({
      value: 'on_track',
      measurement: { ...period(0), actual: 5, target: 4 },
    });
    const none = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const theirs = await createRawKey(none.tenant.id);
    expect((await pushBatch(theirs, [measurementFor(none.kpis[0]!, period(0))])).status).toBe(200);
    expect(await statusOf(none, none.kpis[0]!.id)).toEqual({ value: 'no_target', measurement: null });
    expect(await statusOf(tenant, tenant.kpis[2]!.id)).toEqual({ value: 'no_data', measurement: null });
  });
});

describe('PATCH /kpis/{kpiId}', () => {
  it('sets direction and tolerance; the status follows; fields not sent stay', async () => {
    const kpi = tenant.kpis[0]!;
    const lower = await patch(kpi.id, bearer(tenant.users.ADMIN.token), { direction: 'lower_is_better' });
    expect(lower.status).toBe(200);
    expect(lower.body).toMatchObject({
      id: kpi.id,
      direction: 'lower_is_better',
      tolerance: 0.1,
      qualitative: false,
    });
    expect((await statusOf(tenant, kpi.id)).value).toBe('on_track'); // 91 against 100, lower is better
    await patch(kpi.id, bearer(tenant.users.ADMIN.token), { direction: 'higher_is_better', tolerance: 0.05 });
    expect((await statusOf(tenant, kpi.id)).value).toBe('off_track'); // misses by 9 %, beyond 5 %
    const qualitative = await patch(kpi.id, bearer(tenant.users.ADMIN.token), { qualitative: true });
    expect(qualitative.body).toMatchObject({
      direction: 'higher_is_better',
      tolerance: 0.05,
      qualitative: true,
    });
    expect(await statusOf(tenant, kpi.id)).toBeNull();
  });

  it('400 naming the field: an empty body, an unknown direction, a tolerance outside 0..1, an unknown field', async () => {
    const kpi = tenant.kpis[2]!;
    const cases: [unknown, string][] = [
      [{}, 'direction'],
      [{ direction: 'up' }, 'direction'],
      [{ tolerance: -0.1 }, 'tolerance'],
      [{ tolerance: 1.5 }, 'tolerance'],
      [{ tolerance: '10%' }, 'tolerance'],
      [{ colour: 'red' }, 'colour'],
      [{ cadence: 'hourly' }, 'cadence'],
      [{ graceHours: -1 }, 'graceHours'],
      [{ graceHours: 721 }, 'graceHours'],
      [{ graceHours: 1.5 }, 'graceHours'],
    ];
    for (const [body, name] of cases) {
      const result = await patch(kpi.id, bearer(tenant.users.ADMIN.token), body);
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.headers['content-type']).toBe('application/problem+json');
      expect(JSON.stringify(result.body)).toContain(name);
    }
  });

  it('sets a cadence and grace hours; GET /kpis/{kpiId} says when the KPI goes quiet; none takes it back', async () => {
    const kpi = tenant.kpis[1]!;
    const daily = await patch(kpi.id, bearer(tenant.users.ADMIN.token), { cadence: 'daily', graceHours: 3 });
    expect(daily.status).toBe(200);
    expect(daily.body).toMatchObject({ cadence: 'daily', graceHours: 3, direction: 'higher_is_better' });
    const read = async () =>
      (
        await invoke(getKpi, {
          path: `/api/kpis/${kpi.id}`,
          pathParameters: { kpiId: kpi.id },
          headers: bearer(tenant.users.VIEWER.token),
        })
      ).body;
    const withCadence = await read();
    expect(withCadence).toMatchObject({ cadence: 'daily', graceHours: 3, quiet: expect.any(Boolean) });
    const window =
      Date.parse(withCadence.quietSince) - Date.parse(withCadence.lastMeasurementAt ?? kpi.createdAt);
    expect(window).toBe(27 * 3_600_000);
    // Grace alone leaves the cadence as it is.
    expect((await patch(kpi.id, bearer(tenant.users.ADMIN.token), { graceHours: 0 })).body).toMatchObject({
      cadence: 'daily',
      graceHours: 0,
    });
    const none = await patch(kpi.id, bearer(tenant.users.ADMIN.token), { cadence: 'none' });
    expect(none.body.cadence).toBe('none');
    expect(await read()).toMatchObject({ quiet: false, quietSince: null });
  });

  it('404 for another tenant’s KPI and an unknown one, and nothing changes', async () => {
    const theirs = other.kpis[0]!;
    expect((await patch(theirs.id, bearer(tenant.users.ADMIN.token), { tolerance: 0.5 })).status).toBe(404);
    expect((await patch(randomUUID(), bearer(tenant.users.ADMIN.token), { tolerance: 0.5 })).status).toBe(
      404,
    );
    const unchanged = await invoke(getKpi, {
      path: `/api/kpis/${theirs.id}`,
      pathParameters: { kpiId: theirs.id },
      headers: bearer(other.users.VIEWER.token),
    });
    expect(unchanged.body.tolerance).toBe(0.1);
  });
});

describeJwtAuth(
  'PATCH /kpis/{kpiId}',
  (headers, owner) => patch(owner.kpis[0]!.id, headers, { tolerance: 0.2 }),
  {
    roles: ['ADMIN', 'EDITOR'],
  },
);
