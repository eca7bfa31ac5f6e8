import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getKpi } from '../../../functions/get-kpi';
import { handler as listApiKeys } from '../../../functions/list-api-keys';
import { handler as listKpis } from '../../../functions/list-kpis';
import { handler as listMeasurements } from '../../../functions/list-measurements';
import { handler as listCycles } from '../../../functions/list-strategic-cycles';
import { handler as revokeApiKey } from '../../../functions/revoke-api-key';
import { handler as rollApiKey } from '../../../functions/roll-api-key';
import { createApiKey } from '../../../lib/api-keys/service';
import { bearer, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { call, changedItems, expectSound, fuzzOptions, fuzzTimeout, storedData } from '../../support/fuzz';

/**
 * Path ids and cursors reach the storage as table keys: whatever a client puts there must be a 4xx
 * before any read, never a DynamoDB ValidationException (500). Ids are checked against their format
 * (the route's `pathParams`), cursors are sealed and, once opened, checked against their query's key.
 */
const RUNS = 40;
let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI', 'THEME_KPI'] });
  await createApiKey(db, { tenantId: tenant.tenant.id, name: 'fuzz' });
});

const admin = () => bearer(tenant.users.ADMIN.token);

/** Every JWT route with a path id: handler, method, path template and parameter name. */
const idRoutes = [
  { handler: getKpi, method: 'GET', resource: '/api/kpis/{kpiId}', name: 'kpiId' },
  { handler: listMeasurements, method: 'GET', resource: '/api/kpis/{kpiId}/measurements', name: 'kpiId' },
  { handler: revokeApiKey, method: 'DELETE', resource: '/api/api-keys/{id}', name: 'id' },
  { handler: rollApiKey, method: 'POST', resource: '/api/api-keys/{id}/roll', name: 'id' },
] as const;

const callWithId = (route: (typeof idRoutes)[number], id: string) =>
  call(route.handler, {
    method: route.method,
    // The path as logged; API Gateway hands the handler the decoded parameter below.
    path: route.resource.replace(`{${route.name}}`, 'id'),
    resource: route.resource,
    pathParameters: { [route.name]: id },
    headers: admin(),
  });

/** Every list: handler, path, and the path parameters of the list (a KPI's measurements). */
const lists = () => [
  { handler: listKpis, path: '/api/kpis', params: undefined },
  { handler: listApiKeys, path: '/api/api-keys', params: undefined },
  { handler: listCycles, path: '/api/strategic-cycles', params: undefined },
  { handler: getKpi, path: `/api/kpis/${tenant.kpis[0]!.id}`, params: { kpiId: tenant.kpis[0]!.id } },
  {
    handler: listMeasurements,
    path: `/api/kpis/${tenant.kpis[0]!.id}/measurements`,
    params: { kpiId: tenant.kpis[0]!.id },
  },
];

const callWithCursor = (list: ReturnType<typeof lists>[number], cursor: string) =>
  call(list.handler, {
    path: list.path,
    ...(list.params ? { pathParameters: list.params } : {}),
    query: { cursor },
    headers: admin(),
  });

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Storage cursors of the right partitions with attributes DynamoDB refuses, as a client could forge them. */
const forgedCursors = () => [
  encode({ pk: `KPI#${tenant.kpis[0]!.id}`, sk: 'MEASUREMENT#2026', extra: 'x' }),
  encode({ pk: `KPI#${tenant.kpis[0]!.id}`, sk: '' }),
  encode({ pk: `TENANT#${tenant.tenant.id}`, sk: `CYCLE#${'x'.repeat(3000)}` }),
  encode({ gsi1pk: `TENANT#${tenant.tenant.id}`, gsi1sk: 'KPI#x', pk: 'KPI#x', sk: 'KPI', n: 1 }),
  encode({ gsi1pk: `TENANT#${tenant.tenant.id}`, gsi1sk: 'APIKEY#x', pk: 7, sk: 'APIKEY' }),
];

describe('path ids: 400 before any read', () => {
  it('a 3,000-character id, on every route with one, is a 400 naming the parameter', async () => {
    for (const route of idRoutes) {
      const result = await callWithId(route, 'x'.repeat(3000));
      expectSound(result);
      expect(result.status, route.resource).toBe(400);
      expect(result.body.errors.map((e: { path: string }) => e.path)).toEqual([route.name]);
    }
  });

  it(
    'any id on any route: never 5xx, every 4xx a problem document, nothing changed',
    async () => {
      const id = fc.oneof(
        fc.string({ maxLength: 3000 }),
        fc.string({ unit: 'binary', maxLength: 100 }),
        fc.constantFrom('x'.repeat(3000), '../..', '%00', '\u0000', '\ud800', ' ', 'KPI#x', 'a#b'),
        fc.uuid(),
        fc.uuid().map((uuid) => `${uuid}x`),
        fc.uuid().map((uuid) => uuid.toUpperCase()),
      );
      const before = await storedData();
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...idRoutes), id, async (route, value) => {
          const result = await callWithId(route, value);
          expectSound(result);
          expect([400, 404]).toContain(result.status);
        }),
        fuzzOptions(RUNS),
      );
      // The tenant's key among them: no hostile id reached it.
      expect([...changedItems(before, await storedData())]).toEqual([]);
    },
    fuzzTimeout(RUNS),
  );
});

describe('cursors: 400 for any cursor the service did not hand out', () => {
  it('a forged storage cursor of the right partition is a 400 on every list', async () => {
    for (const list of lists()) {
      for (const cursor of forgedCursors()) {
        const result = await callWithCursor(list, cursor);
        expectSound(result);
        expect(result.status, `${list.path} ${cursor.slice(0, 30)}`).toBe(400);
        expect(result.body.errors.map((e: { path: string }) => e.path)).toEqual(['cursor']);
      }
    }
  });

  it(
    'any cursor on any list: never 5xx, and 400 unless it is a cursor of that list',
    async () => {
      const cursor = fc.oneof(
        fc.string({ minLength: 1, maxLength: 2048 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }),
        fc.constantFrom(...forgedCursors()),
        fc.constantFrom(...forgedCursors()).map((forged) => `c1.${forged}`),
        fc
          .uint8Array({ minLength: 1, maxLength: 300 })
          .map((bytes) => `c1.${Buffer.from(bytes).toString('base64url')}`),
        fc.constant(`c1.${randomUUID()}`),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...lists()), cursor, async (list, value) => {
          const result = await callWithCursor(list, value);
          expectSound(result);
          expect(result.status).toBe(400);
        }),
        fuzzOptions(RUNS),
      );
    },
    fuzzTimeout(RUNS),
  );
});
