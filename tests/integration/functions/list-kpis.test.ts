import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../../functions/list-kpis';
import { KPI_TYPES } from '../../../lib/domain';
import { invoke } from '../../support/events';
import { bearer, createTestTenant, type TestTenant } from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';

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

describe('GET /kpis: errors', () => {
  it('400 for limit above 1000', async () => {
    expect((await list(bearer(tenant.users.VIEWER.token), { limit: '5000' })).status).toBe(400);
  });
});

describeJwtAuth('GET /kpis', (headers) => list(headers));
