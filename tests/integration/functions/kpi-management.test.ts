import { beforeAll, describe, expect, it } from 'vitest';
import { handler as createHandler } from '../../../functions/create-kpi';
import { handler as archiveHandler } from '../../../functions/delete-kpi';
import { handler as getHandler } from '../../../functions/get-kpi';
import { handler as listHandler } from '../../../functions/list-kpis';
import { handler as updateHandler } from '../../../functions/update-kpi';
import { auditEventPage } from '../../../lib/db/audit-events';
import { getKpiOfTenant, setKpiCount } from '../../../lib/db/kpis';
import { KPI_LIMITS } from '../../../lib/domain/plan';
import { invoke } from '../../support/events';
import {
  bearer,
  createRawKey,
  createTestCycles,
  createTestTenant,
  db,
  type TestTenant,
} from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { measurementFor, pushBatch, pushOne, storedMeasurements } from '../../support/push';

const create = (headers: Record<string, string>, body: unknown) =>
  invoke(createHandler, { method: 'POST', path: '/api/kpis', headers, body });
const withKpi =
  (method: string, handler: unknown) => (headers: Record<string, string>, kpiId: string, body?: unknown) =>
    invoke(handler, {
      method,
      path: `/api/kpis/${kpiId}`,
      resource: '/api/kpis/{kpiId}',
      pathParameters: { kpiId },
      headers,
      ...(body === undefined ? {} : { body }),
    });
const patch = withKpi('PATCH', updateHandler);
const archive = withKpi('DELETE', archiveHandler);
const get = withKpi('GET', getHandler);
const list = (headers: Record<string, string>, query: Record<string, string> = {}) =>
  invoke(listHandler, { path: '/api/kpis', headers, query });

const admin = (t: TestTenant) => bearer(t.users.ADMIN.token);
const editor = (t: TestTenant) => bearer(t.users.EDITOR.token);
const viewer = (t: TestTenant) => bearer(t.users.VIEWER.token);
const ids = (body: { items: { id: string }[] }) => body.items.map((k) => k.id);

const eventsOf = async (t: TestTenant, targetId: string) =>
  (await auditEventPage(db, t.tenant.id, { targetId, order: 'newest' }, { limit: 50 })).items;

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([
    createTestTenant({ kpiTypes: ['BSC_KPI'] }),
    createTestTenant({ kpiTypes: ['BSC_KPI'] }),
  ]);
});

describe('POST /kpis', () => {
  it('201 with the KPI and its defaults; it is listed, readable and pushable; kpi.created is audited', async () => {
    const created = await create(editor(tenant), { name: '  Open tickets ', type: 'OKR_KEY_RESULT' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      type: 'OKR_KEY_RESULT',
      name: 'Open tickets',
      createdAt: expect.any(String),
      period: 'month',
      direction: 'higher_is_better',
      tolerance: 0.1,
      qualitative: false,
      cadence: 'none',
      graceHours: 1,
    });
    const kpiId = created.body.id;
    expect(ids((await list(viewer(tenant))).body)).toContain(kpiId);
    expect((await get(viewer(tenant), kpiId)).status).toBe(200);
    const key = await createRawKey(tenant.tenant.id);
    const kpi = (await getKpiOfTenant(db, tenant.tenant.id, kpiId))!;
    expect((await pushOne(key, measurementFor(kpi, { actual: 3 }))).status).toBe(201);
    const [event] = await eventsOf(tenant, kpiId);
    expect(event).toMatchObject({
      type: 'kpi.created',
      actor: { type: 'user', id: tenant.users.EDITOR.id },
      target: { type: 'kpi', id: kpiId },
      details: { name: 'Open tickets', type: 'OKR_KEY_RESULT', period: 'month', cycleId: null },
    });
  });

  it('takes every optional field; a cycle and an owner of the tenant', async () => {
    const [cycle] = await createTestCycles(tenant.tenant.id, ['Strategy 2027']);
    const body = {
      name: 'Support backlog',
      type: 'BSC_KPI',
      unit: 'tickets',
      description: 'Open tickets at the end of the week',
      period: 'week',
      direction: 'lower_is_better',
      tolerance: 0.05,
      cadence: 'weekly',
      graceHours: 12,
      cycleId: cycle!.id,
      ownerId: tenant.users.EDITOR.id,
    };
    const created = await create(admin(tenant), body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(body);
    expect(ids((await list(viewer(tenant), { cycleId: cycle!.id })).body)).toEqual([created.body.id]);
  });

  it('400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ type: 'BSC_KPI' }, 'name'],
      [{ name: '   ', type: 'BSC_KPI' }, 'name'],
      [{ name: 'x'.repeat(201), type: 'BSC_KPI' }, 'name'],
      [{ name: 'Revenue' }, 'type'],
      [{ name: 'Revenue', type: 'KPI' }, 'type'],
      [{ name: 'Revenue', type: 'BSC_KPI', period: 'fortnight' }, 'period'],
      [{ name: 'Revenue', type: 'BSC_KPI', tolerance: 2 }, 'tolerance'],
      [{ name: 'Revenue', type: 'BSC_KPI', cycleId: 'nope' }, 'cycleId'],
      [{ name: 'Revenue', type: 'BSC_KPI', colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const result = await create(admin(tenant), body);
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(result.body.errors), JSON.stringify(body)).toContain(field);
    }
    expect((await create(admin(tenant), { name: 'x'.repeat(200), type: 'BSC_KPI' })).status).toBe(201);
  });

  it('400 for a cycle or an owner of another tenant, and nothing is written', async () => {
    const [theirs] = await createTestCycles(other.tenant.id, ['Theirs']);
    const before = ids((await list(viewer(tenant), { limit: '1000' })).body);
    for (const [field, value] of [
      ['cycleId', theirs!.id],
      ['ownerId', other.users.ADMIN.id],
    ] as const) {
      const result = await create(admin(tenant), { name: 'Revenue', type: 'BSC_KPI', [field]: value });
      expect(result.status).toBe(400);
      expect(result.body.errors).toEqual([
        { path: field, message: expect.stringContaining('of this organization') },
      ]);
    }
    expect(ids((await list(viewer(tenant), { limit: '1000' })).body)).toEqual(before);
  });

  it('holds the plan maximum of live KPIs: 409 past it; archiving frees a place, restoring takes it again', async () => {
    const free = await createTestTenant({ plan: 'free', kpiTypes: ['BSC_KPI'] });
    await setKpiCount(db, free.tenant.id, KPI_LIMITS.free - 1);
    const last = await create(admin(free), { name: 'The last one', type: 'BSC_KPI' });
    expect(last.status).toBe(201);
    const refused = await create(admin(free), { name: 'One too many', type: 'BSC_KPI' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      type: expect.stringContaining('kpi-limit-reached'),
      limit: KPI_LIMITS.free,
      plan: 'free',
    });
    expect((await archive(admin(free), last.body.id)).status).toBe(200);
    const again = await create(admin(free), { name: 'In its place', type: 'BSC_KPI' });
    expect(again.status).toBe(201);
    const restore = await patch(admin(free), last.body.id, { archived: false });
    expect(restore.status).toBe(409);
    expect(restore.body.type).toContain('kpi-limit-reached');
    expect((await get(viewer(free), last.body.id)).body.archivedAt).toEqual(expect.any(String));
  });
});

describeJwtAuth('POST /kpis', (headers) => create(headers, { name: 'Revenue', type: 'BSC_KPI' }), {
  roles: ['ADMIN', 'EDITOR'],
});
describeJwtAuth('DELETE /kpis/{kpiId}', (headers, owner) => archive(headers, owner.kpis[0]!.id), {
  roles: ['ADMIN', 'EDITOR'],
});

describe('PATCH /kpis/{kpiId}: every field', () => {
  it('an EDITOR changes name, type, unit, period, cycle and owner; null clears; kpi.updated names what changed', async () => {
    const [cycle] = await createTestCycles(tenant.tenant.id, ['Growth']);
    const kpi = (await create(admin(tenant), { name: 'Leads', type: 'BSC_KPI', unit: 'leads' })).body;
    const changed = await patch(editor(tenant), kpi.id, {
      name: 'Qualified leads',
      type: 'THEME_KPI',
      period: 'quarter',
      cycleId: cycle!.id,
      ownerId: tenant.users.VIEWER.id,
      unit: null,
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      name: 'Qualified leads',
      type: 'THEME_KPI',
      period: 'quarter',
      cycleId: cycle!.id,
      ownerId: tenant.users.VIEWER.id,
    });
    expect(changed.body).not.toHaveProperty('unit');
    expect(ids((await list(viewer(tenant), { cycleId: cycle!.id })).body)).toEqual([kpi.id]);
    const cleared = await patch(editor(tenant), kpi.id, { cycleId: null });
    expect(cleared.body).not.toHaveProperty('cycleId');
    expect(ids((await list(viewer(tenant), { cycleId: cycle!.id })).body)).toEqual([]);
    const [latest, first] = await eventsOf(tenant, kpi.id);
    expect(first).toMatchObject({
      type: 'kpi.updated',
      details: { changed: ['name', 'type', 'unit', 'period', 'cycleId', 'ownerId'], unit: null },
    });
    expect(latest).toMatchObject({ type: 'kpi.updated', details: { changed: ['cycleId'], cycleId: null } });
  });

  it('404 for another tenant’s KPI, and 400 for a cycle of another tenant', async () => {
    const theirs = other.kpis[0]!;
    expect((await patch(admin(tenant), theirs.id, { name: 'Mine now' })).status).toBe(404);
    expect((await archive(admin(tenant), theirs.id)).status).toBe(404);
    expect((await getKpiOfTenant(db, other.tenant.id, theirs.id))?.archivedAt).toBeUndefined();
    const [cycle] = await createTestCycles(other.tenant.id, ['Not yours']);
    const refused = await patch(admin(tenant), tenant.kpis[0]!.id, { cycleId: cycle!.id });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].path).toBe('cycleId');
  });
});

describe('DELETE /kpis/{kpiId} archives', () => {
  it('the KPI and its measurements stay readable; lists leave it out unless ?archived=true; PATCH restores', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const kpi = (await create(admin(tenant), { name: 'Churn', type: 'BSC_KPI' })).body;
    const stored = (await getKpiOfTenant(db, tenant.tenant.id, kpi.id))!;
    const period = { periodStart: '2026-01-01', periodEnd: '2026-01-31' };
    expect((await pushOne(key, measurementFor(stored, { ...period, actual: 4 }))).status).toBe(201);

    const archived = await archive(editor(tenant), kpi.id);
    expect(archived.status).toBe(200);
    expect(archived.body.archivedAt).toEqual(expect.any(String));
    expect((await archive(editor(tenant), kpi.id)).body.archivedAt).toBe(archived.body.archivedAt);
    expect(ids((await list(viewer(tenant), { limit: '1000' })).body)).not.toContain(kpi.id);
    expect(ids((await list(viewer(tenant), { archived: 'true' })).body)).toEqual([kpi.id]);
    const detail = await get(viewer(tenant), kpi.id);
    expect(detail.status).toBe(200);
    expect(detail.body.archivedAt).toBe(archived.body.archivedAt);
    expect(await storedMeasurements(tenant, kpi.id)).toHaveLength(1);

    // Refused, single and batch, naming the KPI; the batch writes nothing, the live KPI's row included.
    const single = await pushOne(key, measurementFor(stored, { ...period, actual: 5 }));
    expect(single.status).toBe(409);
    expect(single.body).toMatchObject({
      type: expect.stringContaining('kpi-archived'),
      detail: expect.stringContaining(`KPI ${kpi.id} (Churn) is archived`),
      archivedKpiIds: [kpi.id],
    });
    const live = tenant.kpis[0]!;
    const batch = await pushBatch(key, [
      measurementFor(live, { periodStart: '2024-03-01', periodEnd: '2024-03-31', actual: 1 }),
      measurementFor(stored, { ...period, actual: 6 }),
    ]);
    expect(batch.status).toBe(409);
    expect(batch.body.archivedKpiIds).toEqual([kpi.id]);
    expect((await storedMeasurements(tenant, live.id)).filter((m) => m.periodStart === '2024-03-01')).toEqual(
      [],
    );
    expect((await storedMeasurements(tenant, kpi.id))[0]).toMatchObject({ actual: 4 });

    const [restoredEvent, archivedEvent] = [
      ...(await (async () => {
        const restored = await patch(admin(tenant), kpi.id, { archived: false });
        expect(restored.status).toBe(200);
        expect(restored.body).not.toHaveProperty('archivedAt');
        return eventsOf(tenant, kpi.id);
      })()),
    ];
    expect(restoredEvent).toMatchObject({ type: 'kpi.restored', details: { archived: false } });
    expect(archivedEvent).toMatchObject({ type: 'kpi.archived', details: { archived: true } });
    expect(ids((await list(viewer(tenant), { limit: '1000' })).body)).toContain(kpi.id);
    expect((await pushOne(key, measurementFor(stored, { ...period, actual: 7 }))).status).toBe(200);
  });

  it('a VIEWER may not archive (403) and nothing changes', async () => {
    const kpi = tenant.kpis[0]!;
    expect((await archive(viewer(tenant), kpi.id)).status).toBe(403);
    expect((await getKpiOfTenant(db, tenant.tenant.id, kpi.id))?.archivedAt).toBeUndefined();
  });
});
