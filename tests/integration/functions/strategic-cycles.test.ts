import { beforeAll, describe, expect, it } from 'vitest';
import { handler as createHandler } from '../../../functions/create-strategic-cycle';
import { handler as deleteHandler } from '../../../functions/delete-strategic-cycle';
import { handler as getHandler } from '../../../functions/get-strategic-cycle';
import { handler as listHandler } from '../../../functions/list-strategic-cycles';
import { handler as updateHandler } from '../../../functions/update-strategic-cycle';
import { auditEventPage } from '../../../lib/db/audit-events';
import { createKpi } from '../../../lib/db/kpis';
import { updateKpi } from '../../../lib/kpis/settings';
import { invoke } from '../../support/events';
import { bearer, createRawKey, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { measurementFor, pushBatch } from '../../support/push';

const create = (headers: Record<string, string>, body: unknown) =>
  invoke(createHandler, { method: 'POST', path: '/api/strategic-cycles', headers, body });
const withId =
  (method: string, handler: unknown) => (headers: Record<string, string>, id: string, body?: unknown) =>
    invoke(handler, {
      method,
      path: `/api/strategic-cycles/${id}`,
      resource: '/api/strategic-cycles/{id}',
      pathParameters: { id },
      headers,
      ...(body === undefined ? {} : { body }),
    });
const patch = withId('PATCH', updateHandler);
const remove = withId('DELETE', deleteHandler);
const get = withId('GET', getHandler);

const admin = (t: TestTenant) => bearer(t.users.ADMIN.token);
const editor = (t: TestTenant) => bearer(t.users.EDITOR.token);
const viewer = (t: TestTenant) => bearer(t.users.VIEWER.token);
const YEAR = { name: 'Strategy 2027', startDate: '2027-01-01', endDate: '2027-12-31' };

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([
    createTestTenant({ kpiTypes: [] }),
    createTestTenant({ kpiTypes: [] }),
  ]);
});

describe('strategic cycles', () => {
  it('POST 201, planned; listed in the same shape; PATCH changes fields and status; each change audited', async () => {
    const created = await create(editor(tenant), { ...YEAR, description: 'Nordics' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      ...YEAR,
      description: 'Nordics',
      status: 'planned',
      createdAt: expect.any(String),
    });
    const listed = await invoke(listHandler, { path: '/api/strategic-cycles', headers: viewer(tenant) });
    expect(listed.body.items).toContainEqual(created.body);
    const changed = await patch(editor(tenant), created.body.id, {
      status: 'active',
      description: null,
      endDate: '2028-03-31',
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({
      ...created.body,
      status: 'active',
      endDate: '2028-03-31',
      description: undefined,
    });
    const events = (
      await auditEventPage(
        db,
        tenant.tenant.id,
        { targetId: created.body.id, order: 'newest' },
        { limit: 10 },
      )
    ).items;
    expect(events.map((e) => e.type)).toEqual(['cycle.updated', 'cycle.created']);
    expect(events[0]!.details.changed).toEqual(['endDate', 'description', 'status']);
  });

  it('400: a start after the end, on create and on a change; an unknown status', async () => {
    const late = await create(admin(tenant), { ...YEAR, startDate: '2028-01-01' });
    expect(late.status).toBe(400);
    expect(late.body.errors[0].path).toBe('endDate');
    const cycle = (await create(admin(tenant), YEAR)).body;
    expect((await patch(admin(tenant), cycle.id, { startDate: '2030-01-01' })).status).toBe(400);
    expect((await patch(admin(tenant), cycle.id, { status: 'done' })).status).toBe(400);
    expect((await get(viewer(tenant), cycle.id)).body.startDate).toBe(YEAR.startDate);
  });

  it('DELETE only without KPIs: 409 naming how many (archived ones included); 204 once they left', async () => {
    const cycle = (await create(admin(tenant), YEAR)).body;
    const a = await createKpi(db, tenant.tenant.id, { type: 'BSC_KPI', name: 'A', cycleId: cycle.id });
    const b = await createKpi(db, tenant.tenant.id, { type: 'BSC_KPI', name: 'B', cycleId: cycle.id });
    await updateKpi(db, tenant.tenant.id, b.id, { archived: true });
    const refused = await remove(admin(tenant), cycle.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ type: expect.stringContaining('cycle-has-kpis'), kpiCount: 2 });
    expect(refused.body.detail).toContain('has 2 KPI(s)');
    await updateKpi(db, tenant.tenant.id, a.id, { cycleId: null });
    expect((await remove(admin(tenant), cycle.id)).body.kpiCount).toBe(1);
    await updateKpi(db, tenant.tenant.id, b.id, { cycleId: null });
    expect((await remove(editor(tenant), cycle.id)).status).toBe(204);
    expect((await get(viewer(tenant), cycle.id)).status).toBe(404);
  });

  it('GET /{id} counts its live KPIs by status', async () => {
    const cycle = (await create(admin(tenant), YEAR)).body;
    const key = await createRawKey(tenant.tenant.id);
    const make = (name: string) =>
      createKpi(db, tenant.tenant.id, { type: 'BSC_KPI', name, cycleId: cycle.id });
    const [onTrack, atRisk, offTrack, noTarget] = [
      await make('on'),
      await make('risk'),
      await make('off'),
      await make('none'),
    ];
    await make('empty');
    const qualitative = await make('judgement');
    await updateKpi(db, tenant.tenant.id, qualitative.id, { qualitative: true });
    const archived = await make('gone');
    await updateKpi(db, tenant.tenant.id, archived.id, { archived: true });
    const period = { periodStart: '2026-01-01', periodEnd: '2026-01-31' };
    expect(
      (
        await pushBatch(key, [
          measurementFor(onTrack, { ...period, actual: 10, target: 10 }),
          measurementFor(atRisk, { ...period, actual: 95, target: 100 }),
          measurementFor(offTrack, { ...period, actual: 50, target: 100 }),
          measurementFor(noTarget, { ...period, actual: 1 }),
        ])
      ).status,
    ).toBe(200);
    const detail = await get(viewer(tenant), cycle.id);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: cycle.id,
      kpiCount: 6,
      statusCounts: { on_track: 1, at_risk: 1, off_track: 1, no_target: 1, no_data: 1, qualitative: 1 },
    });
  });

  it('another tenant’s cycle is 404 for every route, and stays', async () => {
    const theirs = (await create(admin(other), YEAR)).body;
    expect((await get(admin(tenant), theirs.id)).status).toBe(404);
    expect((await patch(admin(tenant), theirs.id, { name: 'Mine' })).status).toBe(404);
    expect((await remove(admin(tenant), theirs.id)).status).toBe(404);
    expect((await get(viewer(other), theirs.id)).body.name).toBe(YEAR.name);
  });

  it('a VIEWER may not write (403)', async () => {
    const cycle = (await create(admin(tenant), YEAR)).body;
    expect((await create(viewer(tenant), YEAR)).status).toBe(403);
    expect((await patch(viewer(tenant), cycle.id, { name: 'x' })).status).toBe(403);
    expect((await remove(viewer(tenant), cycle.id)).status).toBe(403);
  });
});

describeJwtAuth('POST /strategic-cycles', (headers) => create(headers, YEAR), { roles: ['ADMIN', 'EDITOR'] });
