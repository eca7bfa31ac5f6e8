import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../../functions/list-strategic-cycles';
import { invoke } from '../../support/events';
import { bearer, createTestCycles, createTestTenant, type TestTenant } from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';

const list = (headers: Record<string, string>, query?: Record<string, string>) =>
  invoke(handler, { path: '/api/strategic-cycles', headers, query });

let tenant: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  [tenant, other] = await Promise.all([
    createTestTenant({ kpiTypes: [] }),
    createTestTenant({ kpiTypes: [] }),
  ]);
  await createTestCycles(tenant.tenant.id, ['2026', '2027', '2028']);
  await createTestCycles(other.tenant.id, ['Other tenant cycle']);
});

describe('GET /strategic-cycles: happy path', () => {
  it("lists only the caller's tenant's cycles, oldest first, as { items }", async () => {
    const result = await list(bearer(tenant.users.VIEWER.token));
    expect(result.status).toBe(200);
    expect(result.body.items.map((cycle: { name: string }) => cycle.name)).toEqual(['2026', '2027', '2028']);
    expect(result.body.nextCursor).toBeUndefined();
    expect(Object.keys(result.body.items[0]).sort()).toEqual([
      'createdAt',
      'endDate',
      'id',
      'name',
      'startDate',
      'status',
    ]);
  });

  it('pages with limit and cursor; the last page has no nextCursor', async () => {
    const first = await list(bearer(tenant.users.ADMIN.token), { limit: '2' });
    expect(first.body.items).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await list(bearer(tenant.users.ADMIN.token), {
      limit: '2',
      cursor: first.body.nextCursor,
    });
    expect(second.body.items.map((cycle: { name: string }) => cycle.name)).toEqual(['2028']);
    expect(second.body.nextCursor).toBeUndefined();
  });
});

describe('GET /strategic-cycles: errors', () => {
  it('400 for a limit outside 1..1000, a non-number or an unknown parameter', async () => {
    const queries: Record<string, string>[] = [
      { limit: '0' },
      { limit: '1001' },
      { limit: 'ten' },
      { limit: '1.5' },
      { sort: 'name' },
    ];
    for (const query of queries) {
      const result = await list(bearer(tenant.users.ADMIN.token), query);
      expect(result.status, JSON.stringify(query)).toBe(400);
      expect(result.body.errors[0].path).toBe(Object.keys(query)[0]);
    }
  });

  it('400 for a cursor that is not one of ours', async () => {
    const result = await list(bearer(tenant.users.ADMIN.token), { cursor: 'bm90LWpzb24' });
    expect(result.status).toBe(400);
    expect(result.body.errors).toEqual([{ path: 'cursor', message: 'Invalid cursor' }]);
  });
});

describe('GET /strategic-cycles: security', () => {
  it("400 for a cursor pointing into another tenant's partition", async () => {
    const page = await list(bearer(other.users.ADMIN.token), { limit: '1' });
    const cursor = Buffer.from(
      JSON.stringify({ pk: `TENANT#${other.tenant.id}`, sk: `CYCLE#${randomUUID()}` }),
    ).toString('base64url');
    expect(page.status).toBe(200);
    const result = await list(bearer(tenant.users.ADMIN.token), { cursor });
    expect(result.status).toBe(400);
  });
});

describeJwtAuth('GET /strategic-cycles', (headers) => list(headers));
