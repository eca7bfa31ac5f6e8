import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../../functions/get-kpi';
import { getKpiWithMeasurements } from '../../../lib/db/kpis';
import { invoke } from '../../support/events';
import {
  bearer,
  createRawKey,
  createTestTenant,
  db,
  putMeasurement,
  type TestTenant,
} from '../../support/fixtures';
import { instrument } from '../../support/instrumented-db';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { pushBatch } from '../../support/push';

const get = (kpiId: string, headers: Record<string, string>, query?: Record<string, string>) =>
  invoke(handler, {
    path: `/api/kpis/${kpiId}`,
    resource: '/api/kpis/{kpiId}',
    pathParameters: { kpiId },
    headers,
    query,
  });

const month = (i: number) => {
  const date = new Date(Date.UTC(2025, i, 1));
  const end = new Date(Date.UTC(2025, i + 1, 0));
  return { periodStart: date.toISOString().slice(0, 10), periodEnd: end.toISOString().slice(0, 10) };
};

let tenant: TestTenant;
let other: TestTenant;
let keyPrefix: string;
beforeAll(async () => {
  [tenant, other] = await Promise.all([
    createTestTenant({ kpiTypes: ['BSC_KPI', 'THEME_KPI'] }),
    createTestTenant({ kpiTypes: ['BSC_KPI'] }),
  ]);
  const key = await createRawKey(tenant.tenant.id);
  keyPrefix = key.slice(0, 8);
  const kpi = tenant.kpis[0]!;
  // Pushed out of order: the answer is ordered by period.
  const measurements = [5, 0, 3, 1, 4, 2].map((i) => ({
    kpiId: kpi.id,
    kpiType: kpi.type,
    actual: i * 10,
    ...(i % 2 === 0 ? { target: 25 } : { forecast: 30 }),
    ...month(i),
  }));
  expect((await pushBatch(key, measurements)).status).toBe(200);
  await putMeasurement(other.kpis[0]!, '2025-01-01', '2025-01-31', 42);
});

describe('GET /kpis/{kpiId}: happy path', () => {
  it('the KPI and its measurements in period order, each with receivedAt and the key that pushed it', async () => {
    const kpi = tenant.kpis[0]!;
    const result = await get(kpi.id, bearer(tenant.users.VIEWER.token));
    expect(result.status).toBe(200);
    expect(result.headers['cache-control']).toBe('no-store');
    expect(result.body).toMatchObject({
      id: kpi.id,
      type: 'BSC_KPI',
      name: kpi.name,
      createdAt: kpi.createdAt,
    });
    expect(result.body.tenantId).toBeUndefined();
    expect(result.body.nextCursor).toBeUndefined();
    const { measurements } = result.body;
    expect(measurements.map((m: { actual: number }) => m.actual)).toEqual([0, 10, 20, 30, 40, 50]);
    expect(measurements[0]).toEqual({
      id: expect.any(String),
      kpiId: kpi.id,
      kpiType: 'BSC_KPI',
      actual: 0,
      target: 25,
      forecast: null,
      periodStart: '2025-01-01',
      periodEnd: '2025-01-31',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      receivedAt: expect.any(String),
      apiKeyId: expect.any(String),
      apiKeyPrefix: keyPrefix,
      integrationId: null,
      integrationName: null,
      replaced: null,
    });
    expect(measurements[1]).toMatchObject({ target: null, forecast: 30 });
  });

  it('is one Query on the KPI partition (no separate read of the KPI)', async () => {
    const { db: counted, calls } = instrument(db);
    const found = await getKpiWithMeasurements(counted, tenant.tenant.id, tenant.kpis[0]!.id, { limit: 100 });
    expect(found?.measurements.items).toHaveLength(6);
    expect(calls.map((call) => call.command)).toEqual(['QueryCommand']);
  });

  it('pages through the measurements with limit and cursor, oldest first, without repeats', async () => {
    const kpi = tenant.kpis[0]!;
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await get(kpi.id, bearer(tenant.users.VIEWER.token), {
        limit: '4',
        ...(cursor ? { cursor } : {}),
      });
      expect(page.status).toBe(200);
      expect(page.body.id).toBe(kpi.id);
      expect(page.body.measurements.length).toBeLessThanOrEqual(4);
      seen.push(...page.body.measurements.map((m: { actual: number }) => m.actual));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual([0, 10, 20, 30, 40, 50]);
    expect(pages).toBe(2);
  });

  it('with ?order=newest pages from the newest period back: limit=4 is the last 4 periods, the cursor the older ones', async () => {
    const kpi = tenant.kpis[0]!;
    const first = await get(kpi.id, bearer(tenant.users.VIEWER.token), { order: 'newest', limit: '4' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: kpi.id, name: kpi.name, nextCursor: expect.any(String) });
    expect(first.body.measurements.map((m: { actual: number }) => m.actual)).toEqual([50, 40, 30, 20]);
    const rest = await get(kpi.id, bearer(tenant.users.VIEWER.token), {
      order: 'newest',
      limit: '4',
      cursor: first.body.nextCursor,
    });
    expect(rest.body.id).toBe(kpi.id);
    expect(rest.body.measurements.map((m: { actual: number }) => m.actual)).toEqual([10, 0]);
    expect(rest.body).not.toHaveProperty('nextCursor');
    // Newest first reads what the page returns: the KPI by its key and `limit` measurements.
    const { db: counted, calls } = instrument(db);
    const newest = await getKpiWithMeasurements(counted, tenant.tenant.id, kpi.id, { limit: 2 }, 'newest');
    expect(newest?.measurements.items.map((m) => m.actual)).toEqual([50, 40]);
    expect(calls.map((call) => call.command).sort()).toEqual(['GetItemCommand', 'QueryCommand']);
    const bad = await get(kpi.id, bearer(tenant.users.VIEWER.token), { order: 'latest' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('order');
  });

  it('a KPI without measurements', async () => {
    const kpi = tenant.kpis[1]!;
    const result = await get(kpi.id, bearer(tenant.users.VIEWER.token));
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      id: kpi.id,
      type: 'THEME_KPI',
      name: kpi.name,
      createdAt: kpi.createdAt,
      period: 'month',
      direction: 'higher_is_better',
      tolerance: 0.1,
      qualitative: false,
      cadence: 'none',
      graceHours: 1,
      lastMeasurementAt: null,
      quiet: false,
      quietSince: null,
      measurements: [],
      status: { value: 'no_data', measurement: null },
      change: null,
      targets: [],
    });
  });
});

describe('GET /kpis/{kpiId}: errors', () => {
  it('404 for an unknown KPI; 400 naming the parameter for an id that is no UUID, before any read', async () => {
    const unknown = await get(randomUUID(), bearer(tenant.users.VIEWER.token));
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toBe('application/problem+json');
    expect(unknown.body.type).toMatch(/\/not-found$/);
    for (const id of ['not-a-uuid', 'x'.repeat(3000)]) {
      const result = await get(id, bearer(tenant.users.VIEWER.token));
      expect(result.status).toBe(400);
      expect(result.headers['content-type']).toBe('application/problem+json');
      expect(result.body.type).toMatch(/\/validation-failed$/);
      expect(result.body.errors).toEqual([{ path: 'kpiId', message: expect.any(String) }]);
    }
  });

  it('400 for a bad limit or a malformed cursor', async () => {
    const kpi = tenant.kpis[0]!;
    expect((await get(kpi.id, bearer(tenant.users.VIEWER.token), { limit: '0' })).status).toBe(400);
    const bad = await get(kpi.id, bearer(tenant.users.VIEWER.token), { cursor: 'nonsense' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'cursor', message: 'Invalid cursor' }]);
  });
});

describe('GET /kpis/{kpiId}: security', () => {
  it("404 for another tenant's KPI, the same answer as for a missing one, and none of its measurements", async () => {
    const foreignId = other.kpis[0]!.id;
    const missingId = randomUUID();
    const foreign = await get(foreignId, bearer(tenant.users.ADMIN.token));
    const missing = await get(missingId, bearer(tenant.users.ADMIN.token));
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('"actual"');
    const { requestId: _a, ...foreignBody } = foreign.body;
    const { requestId: _b, ...missingBody } = missing.body;
    expect({ ...foreignBody, detail: foreignBody.detail.replace(foreignId, 'ID') }).toEqual({
      ...missingBody,
      detail: missingBody.detail.replace(missingId, 'ID'),
    });
  });

  it("a cursor page of another tenant's KPI is 404 too (the KPI is read beside the page)", async () => {
    const foreignId = other.kpis[0]!.id;
    // A storage cursor for the foreign partition, as it would be could a client make one: the KPI
    // read beside the page still keeps the foreign measurements out.
    const forged = Buffer.from(JSON.stringify({ pk: `KPI#${foreignId}`, sk: 'KPI' }), 'utf8').toString(
      'base64url',
    );
    expect(await getKpiWithMeasurements(db, tenant.tenant.id, foreignId, { limit: 5, cursor: forged })).toBe(
      undefined,
    );
    // Through the API a client cannot make one: the handed-out cursors are sealed, a forged one is 400.
    const result = await get(foreignId, bearer(tenant.users.VIEWER.token), { cursor: forged });
    expect(result.status).toBe(400);
    expect(result.body.errors).toEqual([{ path: 'cursor', message: 'Invalid cursor' }]);
    // And a cursor of one KPI does not open another KPI's partition.
    const ownPage = await get(tenant.kpis[0]!.id, bearer(tenant.users.VIEWER.token), { limit: '1' });
    expect(ownPage.body.nextCursor).toEqual(expect.any(String));
    const crossed = await get(tenant.kpis[1]!.id, bearer(tenant.users.VIEWER.token), {
      cursor: ownPage.body.nextCursor,
    });
    expect(crossed.status).toBe(400);
  });
});

describeJwtAuth('GET /kpis/{kpiId}', (headers, owner) => get(owner.kpis[0]!.id, headers));
