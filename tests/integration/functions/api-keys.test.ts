import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as createHandler } from '../../../functions/create-api-key';
import { handler as listHandler } from '../../../functions/list-api-keys';
import { handler as revokeHandler } from '../../../functions/revoke-api-key';
import { hashApiKey, isWellFormedApiKey } from '../../../lib/api-keys/key-format';
import { createApiKey } from '../../../lib/api-keys/service';
import { getApiKeyByHash } from '../../../lib/db/api-keys';
import { keys } from '../../../lib/db/keys';
import { updateTenant } from '../../../lib/db/tenants';
import type { Plan } from '../../../lib/domain/plan';
import { describeAllowedSourcesInput } from '../../support/allowed-sources-cases';
import { invoke } from '../../support/events';
import { bearer, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { instrument } from '../../support/instrumented-db';
import { describeJwtAuth } from '../../support/jwt-auth-cases';

const create = (headers: Record<string, string>, body: unknown = { name: 'CI pipeline' }) =>
  invoke(createHandler, { method: 'POST', path: '/api/api-keys', headers, body });
const list = (headers: Record<string, string>, query?: Record<string, string>) =>
  invoke(listHandler, { path: '/api/api-keys', headers, query });
const revoke = (headers: Record<string, string>, id: string) =>
  invoke(revokeHandler, {
    method: 'DELETE',
    path: `/api/api-keys/${id}`,
    resource: '/api/api-keys/{id}',
    pathParameters: { id },
    headers,
  });

const tenantOn = (plan: Plan) => createTestTenant({ plan, kpiTypes: [] });
const admin = (tenant: TestTenant) => bearer(tenant.users.ADMIN.token);
const statusOf = async (tenant: TestTenant, id: string) =>
  (await list(admin(tenant))).body.items.find((key: { id: string }) => key.id === id)?.status;

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await tenantOn('business');
});

describe('API keys: happy path', () => {
  it('POST creates an active key and shows the raw key once (spec 2.7)', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86400_000).toISOString();
    const result = await create(admin(tenant), { name: 'Nightly export', expiresAt });
    expect(result.status).toBe(201);
    expect(Object.keys(result.body).sort()).toEqual([
      'allowedSources',
      'createdAt',
      'createdBy',
      'expiresAt',
      'id',
      'key',
      'kpiIds',
      'lastUsedAt',
      'name',
      'prefix',
      'replacedBy',
      'replaces',
      'revokedAt',
      'revokedBy',
      'rolledAt',
      'rolledBy',
      'status',
    ]);
    expect(result.body).toMatchObject({ name: 'Nightly export', status: 'active', expiresAt, kpiIds: null });
    expect(isWellFormedApiKey(result.body.key)).toBe(true);
    expect(result.body.prefix).toBe(result.body.key.slice(0, 8));
  });

  it('GET lists keys with computed status and never the key or its hash', async () => {
    const created = await create(admin(tenant), { name: 'Listed' });
    const result = await list(bearer(tenant.users.VIEWER.token));
    expect(result.status).toBe(200);
    const listed = result.body.items.find((key: { id: string }) => key.id === created.body.id);
    const { ADMIN } = tenant.users;
    expect(listed).toEqual({
      id: created.body.id,
      name: 'Listed',
      prefix: created.body.prefix,
      status: 'active',
      createdAt: created.body.createdAt,
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
      kpiIds: null,
      allowedSources: null,
      createdBy: { type: 'user', userId: ADMIN.id, email: ADMIN.email },
      revokedBy: null,
      rolledAt: null,
      rolledBy: null,
      replacedBy: null,
      replaces: null,
      usage: {
        days: expect.any(Array),
        requests: 0,
        accepted: 0,
        refused: 0,
        lastRequestAt: null,
        lastSourceIp: null,
        lastUserAgent: null,
      },
    });
    expect(listed.usage.days).toHaveLength(30);
    expect(listed.usage.days.at(-1)).toEqual({
      date: new Date().toISOString().slice(0, 10),
      requests: 0,
      refused: 0,
    });
    expect(result.body.plan).toEqual({
      name: 'business',
      apiKeyLimit: 5,
      features: ['kpi_push_measurement'],
    });
    const text = JSON.stringify(result.body);
    expect(text).not.toContain(created.body.key);
    expect(text).not.toContain(hashApiKey(created.body.key));
  });

  it('DELETE revokes at once; revoking again is 200 too and it stays revoked', async () => {
    const created = await create(admin(tenant), { name: 'To revoke' });
    const revoked = await revoke(admin(tenant), created.body.id);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: created.body.id, status: 'revoked', graceEnded: null });
    expect(await statusOf(tenant, created.body.id)).toBe('revoked');
    const stored = await getApiKeyByHash(db, hashApiKey(created.body.key));
    expect(stored?.revokedAt).toEqual(expect.any(String));
    const again = await revoke(admin(tenant), created.body.id);
    expect(again.status).toBe(200);
    expect((await getApiKeyByHash(db, hashApiKey(created.body.key)))?.revokedAt).toBe(stored?.revokedAt);
  });

  it('a key whose expiration date passed lists as expired, without any job', async () => {
    const expired = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'Expired',
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    expect(await statusOf(tenant, expired.id)).toBe('expired');
  });
});

describe('API keys: plan maximums (spec 8)', () => {
  it.each([
    ['free', 3],
    ['business', 5],
  ] as const)('%s plan: %i keys, then 409 naming the limit; revoking frees a slot', async (plan, limit) => {
    const owner = await tenantOn(plan);
    const ids = [];
    for (let i = 0; i < limit; i++) {
      const result = await create(admin(owner), { name: `key ${i}` });
      expect(result.status).toBe(201);
      ids.push(result.body.id);
    }
    const refused = await create(admin(owner), { name: 'one too many' });
    expect(refused.status).toBe(409);
    expect(refused.body.type).toMatch(/\/api-key-limit-reached$/);
    expect(refused.body.detail).toContain(String(limit));
    expect(refused.body.limit).toBe(limit);
    await revoke(admin(owner), ids[0]);
    expect((await create(admin(owner), { name: 'after revoke' })).status).toBe(201);
  });

  it('enterprise: no maximum', async () => {
    const owner = await tenantOn('enterprise');
    for (let i = 0; i < 7; i++) expect((await create(admin(owner), { name: `key ${i}` })).status).toBe(201);
  });

  it('with one slot left, ten simultaneous creates produce exactly one key', async () => {
    const owner = await tenantOn('free');
    await create(admin(owner), { name: 'a' });
    await create(admin(owner), { name: 'b' });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(admin(owner), { name: `race ${i}` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    const active = (await list(admin(owner))).body.items.filter(
      (key: { status: string }) => key.status === 'active',
    );
    expect(active).toHaveLength(3);
  });

  it('expired keys do not count', async () => {
    const owner = await tenantOn('free');
    // Its expiration date has passed: it holds no slot, with no job having run.
    await createApiKey(db, {
      tenantId: owner.tenant.id,
      name: 'expired',
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    for (const name of ['b', 'c', 'd']) expect((await create(admin(owner), { name })).status).toBe(201);
    expect((await create(admin(owner), { name: 'e' })).status).toBe(409);
  });

  it('a plan downgrade applies to the next create', async () => {
    const owner = await tenantOn('business');
    for (let i = 0; i < 3; i++) await create(admin(owner), { name: `k${i}` });
    await updateTenant(db, owner.tenant.id, { plan: 'free' });
    expect((await create(admin(owner), { name: 'fourth' })).status).toBe(409);
  });

  it('moving from the unlimited plan to one with a maximum counts the keys made while unlimited', async () => {
    const owner = await tenantOn('enterprise');
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await create(admin(owner), { name: `k${i}` })).body.id);
    await revoke(admin(owner), ids[0]);
    await updateTenant(db, owner.tenant.id, { plan: 'free' });
    // 3 active keys of 3: full. A revoked one holds no slot.
    expect((await create(admin(owner), { name: 'over' })).status).toBe(409);
    await revoke(admin(owner), ids[1]);
    expect((await create(admin(owner), { name: 'fits' })).status).toBe(201);
  });
});

describe('API keys: cost', () => {
  const slotsItem = async (tenantId: string) =>
    (await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.apiKeySlots(tenantId) }))).Item;

  it('creating a key costs the same with 0 or 1000 active keys, and the unlimited plan keeps no slot list', async () => {
    const owner = await tenantOn('enterprise');
    const probe = instrument(db);
    await createApiKey(probe.db, { tenantId: owner.tenant.id, name: 'first' });
    const first = probe.capacity();
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          createApiKey(db, { tenantId: owner.tenant.id, name: `bulk ${i + j}` }),
        ),
      );
    }
    probe.reset();
    await createApiKey(probe.db, { tenantId: owner.tenant.id, name: 'after a thousand' });
    expect(probe.capacity()).toEqual(first);
    // The key item, its index entry and its audit event, in one transaction (which doubles them).
    expect(first.write).toBeLessThanOrEqual(6);
    expect(await slotsItem(owner.tenant.id)).toBeUndefined();
  }, 180_000); // a thousand keys to create on a loaded machine

  it('a plan with a maximum keeps at most its maximum of slot holders, whatever was revoked', async () => {
    const owner = await tenantOn('free');
    for (let round = 0; round < 4; round++) {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await create(admin(owner), { name: `r${round}k${i}` })).body.id);
      for (const id of ids) await revoke(admin(owner), id);
    }
    expect((await create(admin(owner), { name: 'last' })).status).toBe(201);
    expect(Object.keys((await slotsItem(owner.tenant.id))?.holders ?? {}).length).toBeLessThanOrEqual(3);
  });
});

describe('API keys: errors', () => {
  it('400 for a missing, empty or too long name, a past or malformed expiresAt, unknown fields', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'a\ud800b' }, 'name'],
      [{}, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 'ok', expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
      [{ name: 'ok', expiresAt: 'next week' }, 'expiresAt'],
      [{ name: 'ok', scopes: ['push'] }, 'scopes'],
    ];
    for (const [body, path] of cases) {
      const result = await create(admin(tenant), body);
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
    }
  });

  it('404 for an unknown key id', async () => {
    expect((await revoke(admin(tenant), '01a00000-0000-7000-8000-000000000000')).status).toBe(404);
  });
});

describe('API keys: security', () => {
  it("tenant A can neither list nor revoke tenant B's keys (404, B's key stays active)", async () => {
    const other = await tenantOn('business');
    const theirs = await create(admin(other), { name: 'B key' });
    const listed = await list(admin(tenant));
    expect(listed.body.items.map((key: { id: string }) => key.id)).not.toContain(theirs.body.id);
    const attempt = await revoke(admin(tenant), theirs.body.id);
    expect(attempt.status).toBe(404);
    expect(await statusOf(other, theirs.body.id)).toBe('active');
  });

  it('no stored item holds the raw key: every attribute of every item is searched', async () => {
    const created = await Promise.all([
      create(admin(tenant), { name: 's1' }),
      create(admin(tenant), { name: 's2' }),
    ]);
    const { Items = [] } = await db.client.send(new ScanCommand({ TableName: db.tableName }));
    const dump = JSON.stringify(Items);
    expect(Items.length).toBeGreaterThan(0);
    for (const { body } of created) {
      expect(dump).not.toContain(body.key);
      expect(dump).not.toContain(body.key.slice(8));
      expect(dump).toContain(hashApiKey(body.key));
    }
  });
});

describe('API keys: cursors', () => {
  it('a cursor reveals nothing: not the stored key hash, not any table key, to any role', async () => {
    const own = await tenantOn('enterprise');
    const made = await Promise.all([create(admin(own), { name: 'c1' }), create(admin(own), { name: 'c2' })]);
    const page = await list(bearer(own.users.VIEWER.token), { limit: '1' });
    const cursor = page.body.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const decoded = Buffer.from(cursor.replace(/^c1\./, ''), 'base64url').toString('latin1');
    for (const { body } of made) expect(decoded).not.toContain(hashApiKey(body.key));
    expect(decoded).not.toContain('APIKEY#');
    expect(decoded).not.toContain(own.tenant.id);
    // It still leads to the next page.
    const next = await list(bearer(own.users.VIEWER.token), { limit: '1', cursor });
    expect(next.status).toBe(200);
    expect(next.body.items).toHaveLength(1);
    expect(next.body.items[0].id).not.toBe(page.body.items[0].id);
  });

  it('400 for a cursor that was made, altered, or handed to another tenant', async () => {
    const own = await tenantOn('enterprise');
    const other = await tenantOn('enterprise');
    await Promise.all([create(admin(own), { name: 'a' }), create(admin(own), { name: 'b' })]);
    await Promise.all([create(admin(other), { name: 'a' }), create(admin(other), { name: 'b' })]);
    const cursor = (await list(admin(own), { limit: '1' })).body.nextCursor as string;
    const theirs = (await list(admin(other), { limit: '1' })).body.nextCursor as string;
    const flipped = `${cursor.slice(0, -2)}${cursor.at(-2) === 'A' ? 'B' : 'A'}${cursor.at(-1)}`;
    // The right partition and a table key of the right kind, as the storage's cursors are written.
    const forged = Buffer.from(
      JSON.stringify({
        pk: 'APIKEY#x',
        sk: 'APIKEY',
        gsi1pk: `TENANT#${own.tenant.id}`,
        gsi1sk: 'APIKEY#x',
        extra: 'y',
      }),
    ).toString('base64url');
    for (const bad of [flipped, theirs, forged, `c1.${forged}`, 'c1.', 'x'.repeat(2048)]) {
      const result = await list(admin(own), { cursor: bad });
      expect(result.status, bad.slice(0, 40)).toBe(400);
      expect(result.body.errors).toEqual([{ path: 'cursor', message: 'Invalid cursor' }]);
    }
  });
});

describe('API keys: source allowlists', () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await tenantOn('enterprise');
  });

  it('a key made without allowedSources works from any address: null, created and listed', async () => {
    const created = await create(admin(tenant), { name: 'anywhere' });
    expect(created.body.allowedSources).toBeNull();
    const item = (await list(bearer(tenant.users.VIEWER.token))).body.items.find(
      (key: { id: string }) => key.id === created.body.id,
    );
    expect(item.allowedSources).toBeNull();
  });

  it('DELETE: a revoked key keeps its list, listed as it was when it stopped', async () => {
    const created = await create(admin(tenant), { name: 'limited', allowedSources: ['203.0.113.7'] });
    expect((await revoke(admin(tenant), created.body.id)).status).toBe(200);
    const item = (await list(admin(tenant))).body.items.find(
      (key: { id: string }) => key.id === created.body.id,
    );
    expect(item).toMatchObject({ status: 'revoked', allowedSources: ['203.0.113.7/32'] });
  });
});

describeAllowedSourcesInput('POST /api-keys', async (owner, allowedSources) => ({
  result: await create(admin(owner), { name: 'allowlist case', allowedSources }),
}));

describeJwtAuth('POST /api-keys', (headers) => create(headers), { roles: ['ADMIN'] });
describeJwtAuth('GET /api-keys', (headers) => list(headers));
describeJwtAuth(
  'DELETE /api-keys/{id}',
  async (headers, owner) => {
    const { id } = await createApiKey(db, { tenantId: owner.tenant.id, name: 'auth case' });
    return revoke(headers, id);
  },
  { roles: ['ADMIN'] },
);
