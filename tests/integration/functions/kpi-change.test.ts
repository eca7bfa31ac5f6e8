import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getKpi } from '../../../functions/get-kpi';
import { handler as listKpis } from '../../../functions/list-kpis';
import type { Kpi } from '../../../lib/domain/kpi';
import { invoke } from '../../support/events';
import { bearer, createTestTenant, putMeasurement, type TestTenant } from '../../support/fixtures';

const list = (headers: Record<string, string>, query?: Record<string, string>) =>
  invoke(listKpis, { path: '/api/kpis', resource: '/api/kpis', headers, query });
const detail = (kpiId: string, headers: Record<string, string>) =>
  invoke(getKpi, {
    path: `/api/kpis/${kpiId}`,
    resource: '/api/kpis/{kpiId}',
    pathParameters: { kpiId },
    headers,
  });

let tenant: TestTenant;
let small: Kpi;
let big: Kpi;
let single: Kpi;
beforeAll(async () => {
  tenant = await createTestTenant({ kpiTypes: ['BSC_KPI', 'THEME_KPI', 'OKR_KEY_RESULT'] });
  [small, big, single] = tenant.kpis as [Kpi, Kpi, Kpi];
  await Promise.all([
    putMeasurement(small, '2026-01-01', '2026-01-31', 100),
    putMeasurement(small, '2026-02-01', '2026-02-28', 110),
    putMeasurement(big, '2026-01-01', '2026-01-31', 100),
    putMeasurement(big, '2026-02-01', '2026-02-28', 40),
    putMeasurement(single, '2026-02-01', '2026-02-28', 7),
  ]);
});

describe('change since the last period', () => {
  it('is in the KPI detail: the previous value, the absolute and the relative difference', async () => {
    const result = await detail(big.id, bearer(tenant.users.VIEWER.token));
    expect(result.status).toBe(200);
    expect(result.body.change).toEqual({ previous: 100, absolute: -60, relative: -0.6 });
    expect((await detail(single.id, bearer(tenant.users.VIEWER.token))).body.change).toBeNull();
  });

  it('is in every KPI of the list, with and without activity', async () => {
    for (const query of [undefined, { include: 'activity' }]) {
      const result = await list(bearer(tenant.users.VIEWER.token), query);
      expect(result.status).toBe(200);
      const byId = new Map(result.body.items.map((k: { id: string; change: unknown }) => [k.id, k.change]));
      expect(byId.get(small.id)).toEqual({ previous: 100, absolute: 10, relative: 0.1 });
      expect(byId.get(big.id)).toEqual({ previous: 100, absolute: -60, relative: -0.6 });
      expect(byId.get(single.id)).toBeNull();
    }
  });

  it('orders the page by it on request, the largest relative change first', async () => {
    const plain = await list(bearer(tenant.users.VIEWER.token));
    expect(plain.body.items.map((k: { id: string }) => k.id)).toEqual([small.id, big.id, single.id]);
    const sorted = await list(bearer(tenant.users.VIEWER.token), { sort: 'change' });
    expect(sorted.status).toBe(200);
    expect(sorted.body.items.map((k: { id: string }) => k.id)).toEqual([big.id, small.id, single.id]);
    const refused = await list(bearer(tenant.users.VIEWER.token), { sort: 'name' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('sort must be');
  });
});
