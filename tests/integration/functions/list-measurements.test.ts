import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../../functions/list-measurements';
import { invoke } from '../../support/events';
import { bearer, createTestTenant, putMeasurement, type TestTenant } from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';

const list = (kpiId: string, headers: Record<string, string>, query?: Record<string, string>) =>
  invoke(handler, {
    path: `/api/kpis/${kpiId}/measurements`,
    resource: '/api/kpis/{kpiId}/measurements',
    pathParameters: { kpiId },
    headers,
    query,
  });

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([
    createTestTenant({ kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] }),
    createTestTenant({ kpiTypes: ['BSC_KPI'] }),
  ]);
  const kpi = tenant.kpis[0]!;
  await putMeasurement(kpi, '2026-03-01', '2026-03-31', 3);
  await putMeasurement(kpi, '2026-01-01', '2026-01-31', 1);
  await putMeasurement(kpi, '2026-02-01', '2026-02-28', 2);
  await putMeasurement(tenant.kpis[1]!, '2026-01-01', '2026-01-31', 99);
  await putMeasurement(other.kpis[0]!, '2026-01-01', '2026-01-31', 42);
});

describe('GET /kpis/{kpiId}/measurements: happy path', () => {
  it('lists the measurements of that KPI ordered by period, with the public fields and provenance', async () => {
    const result = await list(tenant.kpis[0]!.id, bearer(tenant.users.VIEWER.token));
    expect(result.status).toBe(200);
    expect(result.body.items.map((m: { actual: number }) => m.actual)).toEqual([1, 2, 3]);
    expect(Object.keys(result.body.items[0]).sort()).toEqual([
      'actual',
      'apiKeyId',
      'apiKeyPrefix',
      'createdAt',
      'forecast',
      'id',
      'integrationId',
      'integrationName',
      'kpiId',
      'kpiType',
      'periodEnd',
      'periodStart',
      'receivedAt',
      'replaced',
      'target',
      'updatedAt',
    ]);
    // Written without push: no provenance, shown as null.
    expect(result.body.items[0]).toMatchObject({
      kpiType: 'BSC_KPI',
      target: null,
      forecast: null,
      receivedAt: null,
      apiKeyId: null,
      apiKeyPrefix: null,
      integrationId: null,
      integrationName: null,
    });
  });

  it('an empty list for a KPI without measurements', async () => {
    const fresh = await createTestTenant({ kpiTypes: ['THEME_KPI'] });
    const result = await list(fresh.kpis[0]!.id, bearer(fresh.users.VIEWER.token));
    expect(result.body).toEqual({ items: [] });
  });
});

describe('GET /kpis/{kpiId}/measurements: errors', () => {
  it('404 for an unknown KPI', async () => {
    const result = await list(randomUUID(), bearer(tenant.users.VIEWER.token));
    expect(result.status).toBe(404);
    expect(result.body.type).toMatch(/\/not-found$/);
  });
});

describe('GET /kpis/{kpiId}/measurements: security', () => {
  it("404 for another tenant's KPI, the same answer as for a missing one", async () => {
    const foreignId = other.kpis[0]!.id;
    const missingId = randomUUID();
    const foreign = await list(foreignId, bearer(tenant.users.ADMIN.token));
    const missing = await list(missingId, bearer(tenant.users.ADMIN.token));
    expect(foreign.status).toBe(404);
    expect(foreign.body.items).toBeUndefined();
    // Identical but for the id named in `detail` and the request id: nothing tells the KPI exists.
    const { requestId: _a, ...foreignBody } = foreign.body;
    const { requestId: _b, ...missingBody } = missing.body;
    expect({ ...foreignBody, detail: foreignBody.detail.replace(foreignId, 'ID') }).toEqual({
      ...missingBody,
      detail: missingBody.detail.replace(missingId, 'ID'),
    });
  });
});

describeJwtAuth('GET /kpis/{kpiId}/measurements', (headers, owner) => list(owner.kpis[0]!.id, headers));
