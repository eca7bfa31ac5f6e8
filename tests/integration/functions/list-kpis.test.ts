import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../../functions/list-kpis';
import { createKpi } from '../../../lib/db/kpis';
import { KPI_TYPES } from '../../../lib/domain/kpi';
import { RECENT_MEASUREMENTS } from '../../../lib/kpis/activity';
import { updateKpi } from '../../../lib/kpis/settings';
import { invoke } from '../../support/events';
import {
  bearer,
  createRawKey,
  createTestTenant,
  db,
  putMeasurement,
  type TestTenant,
} from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { pushBatch } from '../../support/push';

const list = (headers: Record<string, string>, query?: Record<string, string>) =>
  invoke(handler, { path: '/api/kpis', headers, query });

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([createTestTenant(), createTestTenant({ kpiTypes: ['BSC_KPI'] })]);
});

describe('GET /kpis: happy path', () => {
  it("lists the tenant's KPIs with id, type and name, and nothing of other tenants", async () => {
    const result = await list(bearer(tenant.users.VIEWER.token));
    expect(result.status).toBe(200);
    expect(result.body.items).toHaveLength(KPI_TYPES.length);
    expect(result.body.items.map((kpi: { type: string }) => kpi.type).sort()).toEqual([...KPI_TYPES].sort());
    for (const kpi of result.body.items) {
      expect(kpi).toEqual({
        id: expect.any(String),
        type: expect.any(String),
        name: expect.any(String),
        createdAt: expect.any(String),
        period: 'month',
        direction: 'higher_is_better',
        tolerance: 0.1,
        qualitative: false,
        cadence: 'none',
        graceHours: 1,
        lastMeasurementAt: null,
        quiet: false,
        quietSince: null,
        change: null,
      });
    }
    const otherIds = new Set(other.kpis.map((kpi) => kpi.id));
    expect(result.body.items.some((kpi: { id: string }) => otherIds.has(kpi.id))).toBe(false);
  });

  it('pages through all KPIs without repeats', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(bearer(tenant.users.VIEWER.token), {
        limit: '3',
        ...(cursor ? { cursor } : {}),
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((kpi: { id: string }) => kpi.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(KPI_TYPES.length);
    expect(seen).toHaveLength(KPI_TYPES.length);
  });
});

describe('GET /kpis?type=: one KPI type only', () => {
  let mixed: TestTenant;
  beforeAll(async () => {
    // Interleaved types, so a page of the index holds both and the filter has something to skip.
    mixed = await createTestTenant({ kpiTypes: [] });
    for (let i = 0; i < 7; i++) {
      await createKpi(db, mixed.tenant.id, {
        type: i % 3 === 0 ? 'OKR_KEY_RESULT' : 'BSC_KPI',
        name: `K${i}`,
      });
    }
  });

  it('lists only KPIs of that type', async () => {
    const result = await list(bearer(mixed.users.VIEWER.token), { type: 'OKR_KEY_RESULT' });
    expect(result.status).toBe(200);
    expect(result.body.items.map((kpi: { name: string }) => kpi.name)).toEqual(['K0', 'K3', 'K6']);
    expect(result.body.nextCursor).toBeUndefined();
  });

  it('fills each page to `limit` matches although DynamoDB filters after its Limit, and pages on', async () => {
    const first = await list(bearer(mixed.users.VIEWER.token), { type: 'BSC_KPI', limit: '2' });
    expect(first.body.items.map((kpi: { name: string }) => kpi.name)).toEqual(['K1', 'K2']);
    const names: string[] = [];
    let cursor: string | undefined = first.body.nextCursor;
    while (cursor) {
      const page = await list(bearer(mixed.users.VIEWER.token), { type: 'BSC_KPI', limit: '2', cursor });
      expect(page.body.items.length === 2 || !page.body.nextCursor).toBe(true);
      names.push(...page.body.items.map((kpi: { name: string }) => kpi.name));
      cursor = page.body.nextCursor;
    }
    expect(names).toEqual(['K4', 'K5']);
  });

  it('an empty list for a type the tenant has none of', async () => {
    const result = await list(bearer(mixed.users.VIEWER.token), { type: 'SWOT_KPI' });
    expect(result.body).toEqual({ items: [] });
  });
});

describe('GET /kpis?include=activity: the newest measurements, and quiet by cadence', () => {
  let active: TestTenant;
  beforeAll(async () => {
    active = await createTestTenant({ kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT', 'THEME_KPI'] });
    const key = await createRawKey(active.tenant.id);
    const [bsc, okr] = active.kpis;
    // Twelve monthly periods for one KPI, pushed now through the push endpoint (provenance recorded).
    const monthly = Array.from({ length: 12 }, (_, i) => {
      const mm = String(i + 1).padStart(2, '0');
      const last = new Date(Date.UTC(2025, i + 1, 0)).getUTCDate();
      return {
        kpiId: bsc!.id,
        kpiType: 'BSC_KPI',
        actual: i,
        target: 10,
        periodStart: `2025-${mm}-01`,
        periodEnd: `2025-${mm}-${last}`,
      };
    });
    const pushed = await pushBatch(key, monthly);
    expect(pushed.status).toBe(200);
    // Two monthly periods received in February 2025: long quiet since.
    await putMeasurement(okr!, '2025-01-01', '2025-01-31', 1, { receivedAt: '2025-02-01T06:00:00.000Z' });
    await putMeasurement(okr!, '2025-02-01', '2025-02-28', 2, { receivedAt: '2025-03-01T06:00:00.000Z' });
  });

  const byName = (items: { type: string; activity: unknown }[], type: string) =>
    items.find((kpi) => kpi.type === type) as any;

  it('each KPI brings its newest measurements (newest first), the latest with its provenance', async () => {
    const result = await list(bearer(active.users.VIEWER.token), { include: 'activity' });
    expect(result.status).toBe(200);
    const bsc = byName(result.body.items, 'BSC_KPI');
    expect(bsc.activity.recent).toHaveLength(RECENT_MEASUREMENTS);
    expect(bsc.activity.recent.map((p: { actual: number }) => p.actual)).toEqual(
      Array.from({ length: RECENT_MEASUREMENTS }, (_, i) => 11 - i),
    );
    expect(bsc.activity.latest).toMatchObject({
      periodStart: '2025-12-01',
      periodEnd: '2025-12-31',
      actual: 11,
      target: 10,
      forecast: null,
      receivedAt: expect.any(String),
      apiKeyId: expect.any(String),
      apiKeyPrefix: expect.stringMatching(/^skm_.{4}$/),
    });
    expect(bsc.lastMeasurementAt).toBe(bsc.activity.latest.receivedAt);
    expect(bsc.activity.usualIntervalDays).toBeGreaterThanOrEqual(30);
    expect(bsc.tenantId).toBeUndefined();
  });

  it('a KPI without measurements has empty activity and no lastMeasurementAt', async () => {
    const result = await list(bearer(active.users.VIEWER.token), { include: 'activity' });
    const okr = byName(result.body.items, 'OKR_KEY_RESULT');
    expect(okr.activity.recent.map((p: { actual: number }) => p.actual)).toEqual([2, 1]);
    expect(okr.lastMeasurementAt).toBe('2025-03-01T06:00:00.000Z');
    const empty = byName(result.body.items, 'THEME_KPI');
    expect(empty.activity).toEqual({ latest: null, recent: [], usualIntervalDays: null });
    expect(empty.lastMeasurementAt).toBeNull();
  });

  it('quiet follows the cadence: data from 2025 is quiet with one, never without one', async () => {
    const [bsc, okr, theme] = active.kpis;
    const before = await list(bearer(active.users.VIEWER.token));
    expect(before.body.items.every((kpi: { quiet: boolean }) => kpi.quiet === false)).toBe(true);
    await updateKpi(db, active.tenant.id, okr!.id, { cadence: 'monthly', graceHours: 24 });
    await updateKpi(db, active.tenant.id, bsc!.id, { cadence: 'daily' });
    await updateKpi(db, active.tenant.id, theme!.id, { cadence: 'weekly' });
    const after = await list(bearer(active.users.VIEWER.token));
    const listed = byName(after.body.items, 'OKR_KEY_RESULT');
    expect(listed).toMatchObject({
      cadence: 'monthly',
      graceHours: 24,
      lastMeasurementAt: '2025-03-01T06:00:00.000Z',
      quiet: true,
      // 31 days and 24 hours after the last arrival.
      quietSince: '2025-04-02T06:00:00.000Z',
    });
    // Pushed moments ago, daily: not quiet yet.
    expect(byName(after.body.items, 'BSC_KPI').quiet).toBe(false);
    // Never any data: quiet a week and an hour after its creation, which was moments ago.
    const empty = byName(after.body.items, 'THEME_KPI');
    expect(empty.quiet).toBe(false);
    expect(Date.parse(empty.quietSince) - Date.parse(empty.createdAt)).toBe((168 + 1) * 3_600_000);
    await updateKpi(db, active.tenant.id, okr!.id, { cadence: 'none' });
    await updateKpi(db, active.tenant.id, bsc!.id, { cadence: 'none' });
    await updateKpi(db, active.tenant.id, theme!.id, { cadence: 'none' });
  });

  it('combines with the type filter', async () => {
    const result = await list(bearer(active.users.VIEWER.token), {
      include: 'activity',
      type: 'OKR_KEY_RESULT',
    });
    expect(result.body.items).toHaveLength(1);
    expect(result.body.items[0].activity.recent).toHaveLength(2);
  });

  it('without include, the list has no activity but the same arrivals', async () => {
    const [plain, withActivity] = await Promise.all([
      list(bearer(active.users.VIEWER.token)),
      list(bearer(active.users.VIEWER.token), { include: 'activity' }),
    ]);
    for (const kpi of plain.body.items) expect(kpi.activity).toBeUndefined();
    const arrivals = ({ id, lastMeasurementAt, quiet, quietSince }: Record<string, unknown>) => ({
      id,
      lastMeasurementAt,
      quiet,
      quietSince,
    });
    expect(plain.body.items.map(arrivals)).toEqual(withActivity.body.items.map(arrivals));
  });
});

describe('GET /kpis: errors', () => {
  it('400 for limit above 1000', async () => {
    expect((await list(bearer(tenant.users.VIEWER.token), { limit: '5000' })).status).toBe(400);
  });

  it('400 naming each bad query parameter: an unknown type, include or parameter', async () => {
    const result = await list(bearer(tenant.users.VIEWER.token), {
      type: 'NOPE',
      include: 'everything',
      sort: 'x',
    });
    expect(result.status).toBe(400);
    expect(result.headers['content-type']).toBe('application/problem+json');
    expect(result.body.type).toMatch(/\/validation-failed$/);
    const paths = result.body.errors.map((error: { path: string }) => error.path).sort();
    expect(paths).toEqual(['include', 'sort', 'type']);
    expect(result.body.errors.find((e: { path: string }) => e.path === 'type').message).toMatch(/BSC_KPI/);
  });

  it('400 for more than 100 KPIs per page with include=activity (one Query each)', async () => {
    const result = await list(bearer(tenant.users.VIEWER.token), { include: 'activity', limit: '101' });
    expect(result.status).toBe(400);
    expect(result.body.errors).toEqual([
      { path: 'limit', message: 'limit must be at most 100 with include=activity' },
    ]);
    expect(
      (await list(bearer(tenant.users.VIEWER.token), { include: 'activity', limit: '100' })).status,
    ).toBe(200);
  });
});

describe('GET /kpis: security', () => {
  it("a cursor of another tenant's list is refused (400), with or without a filter", async () => {
    const otherBig = await createTestTenant({ kpiTypes: ['BSC_KPI', 'BSC_KPI'] });
    const foreign = await list(bearer(otherBig.users.VIEWER.token), { limit: '1' });
    expect(foreign.body.nextCursor).toEqual(expect.any(String));
    for (const query of [{}, { type: 'BSC_KPI' }, { include: 'activity' }] as Record<string, string>[]) {
      const result = await list(bearer(tenant.users.VIEWER.token), {
        ...query,
        cursor: foreign.body.nextCursor,
      });
      expect(result.status).toBe(400);
      expect(result.body.errors).toEqual([{ path: 'cursor', message: 'Invalid cursor' }]);
    }
  });

  it("activity never includes another tenant's KPIs or measurements", async () => {
    const result = await list(bearer(tenant.users.VIEWER.token), { include: 'activity' });
    const otherIds = new Set(other.kpis.map((kpi) => kpi.id));
    expect(result.body.items.some((kpi: { id: string }) => otherIds.has(kpi.id))).toBe(false);
  });
});

describeJwtAuth('GET /kpis', (headers) => list(headers));
