import { beforeAll, describe, expect, it } from 'vitest';
import { handler as createHandler } from '../../../functions/create-kpi';
import { handler as archiveHandler } from '../../../functions/delete-kpi';
import { handler as getHandler } from '../../../functions/get-kpi';
import { handler as listHandler } from '../../../functions/list-kpis';
import { handler as setHandler } from '../../../functions/set-kpi-targets';
import { auditEventPage } from '../../../lib/db/audit-events';
import { getKpiOfTenant } from '../../../lib/db/kpis';
import { MAX_KPI_TARGETS } from '../../../lib/domain/kpi';
import { invoke } from '../../support/events';
import { bearer, createRawKey, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { measurementFor, pushOne } from '../../support/push';

const withKpi =
  (method: string, handler: unknown, suffix = '') =>
  (headers: Record<string, string>, kpiId: string, body?: unknown) =>
    invoke(handler, {
      method,
      path: `/api/kpis/${kpiId}${suffix}`,
      resource: `/api/kpis/{kpiId}${suffix}`,
      pathParameters: { kpiId },
      headers,
      ...(body === undefined ? {} : { body }),
    });
const setTargets = withKpi('PUT', setHandler, '/targets');
const archive = withKpi('DELETE', archiveHandler);
const get = withKpi('GET', getHandler);
const create = (headers: Record<string, string>, body: unknown) =>
  invoke(createHandler, { method: 'POST', path: '/api/kpis', headers, body });

const admin = (t: TestTenant) => bearer(t.users.ADMIN.token);
const editor = (t: TestTenant) => bearer(t.users.EDITOR.token);
const viewer = (t: TestTenant) => bearer(t.users.VIEWER.token);

const JAN = { periodStart: '2026-01-01', periodEnd: '2026-01-31' };
const FEB = { periodStart: '2026-02-01', periodEnd: '2026-02-28' };
const MAR = { periodStart: '2026-03-01', periodEnd: '2026-03-31' };

/** `count` consecutive months from January 2000. */
const months = (count: number, value: number | null = 1) =>
  Array.from({ length: count }, (_, i) => {
    const year = 2000 + Math.floor(i / 12);
    const month = (i % 12) + 1;
    const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
    const mm = String(month).padStart(2, '0');
    return { periodStart: `${year}-${mm}-01`, periodEnd: `${year}-${mm}-${last}`, value };
  });

let tenant: TestTenant;
let other: TestTenant;
const newKpi = async () => {
  const created = await create(admin(tenant), { name: `Revenue ${Math.random()}`, type: 'BSC_KPI' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
};

beforeAll(async () => {
  [tenant, other] = await Promise.all([
    createTestTenant({ kpiTypes: ['BSC_KPI'] }),
    createTestTenant({ kpiTypes: ['BSC_KPI'] }),
  ]);
});

describe('PUT /kpis/{kpiId}/targets', () => {
  it('ADMIN and EDITOR set targets, listed by GET /kpis/{kpiId} in period order also without measurements; null removes one; audited', async () => {
    const kpiId = await newKpi();
    const set = await setTargets(editor(tenant), kpiId, {
      targets: [
        { ...FEB, value: 20 },
        { ...JAN, value: 10 },
      ],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({
      targets: [
        { ...JAN, value: 10 },
        { ...FEB, value: 20 },
      ],
    });
    const again = await setTargets(admin(tenant), kpiId, {
      targets: [
        { ...JAN, value: null },
        { ...MAR, value: 0 },
      ],
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const detail = await get(viewer(tenant), kpiId);
    expect(detail.body.measurements).toEqual([]);
    expect(detail.body.targets).toEqual([
      { ...FEB, value: 20 },
      { ...MAR, value: 0 },
    ]);
    expect(detail.body.status).toEqual({ value: 'no_data', measurement: null });
    // The list's view of the KPI carries no targets map.
    const listed = await invoke(listHandler, { path: '/api/kpis', headers: viewer(tenant) });
    expect(listed.body.items.find((k: { id: string }) => k.id === kpiId)).not.toHaveProperty('targets');
    const [event] = (
      await auditEventPage(db, tenant.tenant.id, { targetId: kpiId, order: 'newest' }, { limit: 10 })
    ).items;
    expect(event).toMatchObject({
      type: 'kpi.targets_set',
      actor: { type: 'user', id: tenant.users.ADMIN.id },
      target: { type: 'kpi', id: kpiId },
      details: { set: ['2026-03-01/2026-03-31'], removed: ['2026-01-01/2026-01-31'], stored: 2 },
    });
  });

  it('VIEWER is 403; another tenant’s KPI is 404; nothing is written', async () => {
    const kpiId = await newKpi();
    const body = { targets: [{ ...JAN, value: 1 }] };
    const refused = await setTargets(viewer(tenant), kpiId, body);
    expect(refused.status).toBe(403);
    const foreign = await setTargets(admin(other), kpiId, body);
    expect(foreign.status).toBe(404);
    expect((await getKpiOfTenant(db, tenant.tenant.id, kpiId))?.targets).toBeUndefined();
  });

  it('400 naming targets[i].periodStart and the expected dates for a span that is no whole period; all or nothing', async () => {
    const kpiId = await newKpi();
    const res = await setTargets(editor(tenant), kpiId, {
      targets: [
        { ...JAN, value: 1 },
        { periodStart: '2026-02-01', periodEnd: '2026-02-27', value: 2 },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        path: 'targets[1].periodStart',
        message: expect.stringMatching(
          /whose period is month .*expected periodStart 2026-02-01 and periodEnd 2026-02-28/,
        ),
      },
    ]);
    expect((await get(viewer(tenant), kpiId)).body.targets).toEqual([]);
  });

  it('400 for no target, more than 100, a value that is no storable number, or an unknown field', async () => {
    const kpiId = await newKpi();
    const cases: [unknown, string][] = [
      [{ targets: [] }, 'targets'],
      [{ targets: months(101) }, 'targets'],
      [{ targets: [{ ...JAN, value: '5' }] }, 'targets[0].value'],
      [{ targets: [{ ...JAN, value: 1e300 }] }, 'targets[0].value'],
      [{ targets: [{ ...JAN, value: 1, note: 'x' }] }, 'targets[0].note'],
      [
        { targets: [{ periodStart: '2026-02-30', periodEnd: '2026-03-01', value: 1 }] },
        'targets[0].periodStart',
      ],
    ];
    for (const [body, path] of cases) {
      const res = await setTargets(editor(tenant), kpiId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect((await setTargets(editor(tenant), kpiId, { targets: months(100) })).status).toBe(200);
  });

  it(`409 past ${MAX_KPI_TARGETS} stored periods, keeping what was stored`, async () => {
    const kpiId = await newKpi();
    const all = months(MAX_KPI_TARGETS + 1);
    for (let start = 0; start < MAX_KPI_TARGETS; start += 100) {
      expect(
        (await setTargets(editor(tenant), kpiId, { targets: all.slice(start, start + 100) })).status,
      ).toBe(200);
    }
    const past = await setTargets(editor(tenant), kpiId, { targets: all.slice(MAX_KPI_TARGETS) });
    expect(past.status).toBe(409);
    expect((await get(viewer(tenant), kpiId)).body.targets).toHaveLength(MAX_KPI_TARGETS);
    // Replacing one stored period's target stays within the bound.
    expect((await setTargets(editor(tenant), kpiId, { targets: [{ ...all[0]!, value: 7 }] })).status).toBe(
      200,
    );
  });

  it('409 for an archived KPI, like a push', async () => {
    const kpiId = await newKpi();
    expect((await archive(admin(tenant), kpiId)).status).toBe(200);
    const res = await setTargets(editor(tenant), kpiId, { targets: [{ ...JAN, value: 1 }] });
    expect(res.status).toBe(409);
    expect(res.body.type).toMatch(/kpi-archived$/);
  });
});

describe('target precedence', () => {
  it('a measurement’s own target wins; without one the KPI’s target for its period is used, and the status says which', async () => {
    const kpiId = await newKpi();
    const kpi = (await getKpiOfTenant(db, tenant.tenant.id, kpiId))!;
    const key = await createRawKey(tenant.tenant.id);
    expect((await setTargets(editor(tenant), kpiId, { targets: [{ ...JAN, value: 100 }] })).status).toBe(200);
    expect((await pushOne(key, measurementFor(kpi, { ...JAN, actual: 50 }))).status).toBe(201);
    const fromKpi = await get(viewer(tenant), kpiId);
    expect(fromKpi.body.status).toMatchObject({
      value: 'off_track',
      measurement: { ...JAN, actual: 50, target: 100 },
      targetSource: 'kpi',
    });
    // The measurement keeps no target of its own: the KPI's stays the KPI's.
    expect(fromKpi.body.measurements[0].target).toBeNull();
    expect((await pushOne(key, measurementFor(kpi, { ...JAN, actual: 50, target: 50 }))).status).toBe(200);
    const own = await get(viewer(tenant), kpiId);
    expect(own.body.status).toMatchObject({
      value: 'on_track',
      measurement: { ...JAN, actual: 50, target: 50 },
      targetSource: 'measurement',
    });
    const listed = await invoke(listHandler, {
      path: '/api/kpis',
      headers: viewer(tenant),
      query: { include: 'activity' },
    });
    expect(listed.body.items.find((k: { id: string }) => k.id === kpiId).status.targetSource).toBe(
      'measurement',
    );
  });

  it('the list’s status uses the KPI’s target too', async () => {
    const kpiId = await newKpi();
    const kpi = (await getKpiOfTenant(db, tenant.tenant.id, kpiId))!;
    const key = await createRawKey(tenant.tenant.id);
    expect((await pushOne(key, measurementFor(kpi, { ...FEB, actual: 95 }))).status).toBe(201);
    expect((await get(viewer(tenant), kpiId)).body.status).toEqual({ value: 'no_target', measurement: null });
    expect((await setTargets(editor(tenant), kpiId, { targets: [{ ...FEB, value: 100 }] })).status).toBe(200);
    const listed = await invoke(listHandler, {
      path: '/api/kpis',
      headers: viewer(tenant),
      query: { include: 'activity' },
    });
    expect(listed.body.items.find((k: { id: string }) => k.id === kpiId).status).toMatchObject({
      value: 'at_risk',
      targetSource: 'kpi',
    });
  });
});
