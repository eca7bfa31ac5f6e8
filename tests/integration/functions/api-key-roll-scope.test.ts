import { randomUUID } from 'node:crypto';
import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as createHandler } from '../../../functions/create-api-key';
import { handler as listHandler } from '../../../functions/list-api-keys';
import { handler as revokeHandler } from '../../../functions/revoke-api-key';
import { handler as rollHandler } from '../../../functions/roll-api-key';
import { hashApiKey } from '../../../lib/api-keys/key-format';
import { createApiKey, revokeApiKey, rollApiKey } from '../../../lib/api-keys/service';
import { getApiKeyByHash } from '../../../lib/db/api-keys';
import { decodeScope, encodeScope } from '../../../lib/db/key-scope';
import { keys } from '../../../lib/db/keys';
import { createKpi } from '../../../lib/db/kpis';
import { getTenant, updateTenant } from '../../../lib/db/tenants';
import type { Kpi } from '../../../lib/domain/kpi';
import type { Plan } from '../../../lib/domain/plan';
import { type PushDeps, pushMeasurements } from '../../../lib/push/push-service';
import { createTenantCache } from '../../../lib/tenant-cache';
import { apiEvent, type Handler, invoke, lambdaContext } from '../../support/events';
import { bearer, createTestTenant, db, publish, type TestTenant } from '../../support/fixtures';
import { instrument } from '../../support/instrumented-db';
import { describeJwtAuth } from '../../support/jwt-auth-cases';
import { measurementFor, monthlyMeasurements, pushBatch, pushOne } from '../../support/push';

const admin = (tenant: TestTenant) => bearer(tenant.users.ADMIN.token);
const create = (tenant: TestTenant, body: unknown) =>
  invoke(createHandler, { method: 'POST', path: '/api/api-keys', headers: admin(tenant), body });
const roll = (headers: Record<string, string>, id: string, body?: unknown) =>
  invoke(rollHandler, {
    method: 'POST',
    path: `/api/api-keys/${id}/roll`,
    resource: '/api/api-keys/{id}/roll',
    pathParameters: { id },
    headers,
    body,
  });
const revoke = (headers: Record<string, string>, id: string) =>
  invoke(revokeHandler, {
    method: 'DELETE',
    path: `/api/api-keys/${id}`,
    resource: '/api/api-keys/{id}',
    pathParameters: { id },
    headers,
  });
const list = async (tenant: TestTenant) =>
  (await invoke(listHandler, { path: '/api/api-keys', headers: bearer(tenant.users.VIEWER.token) })).body;
const listed = async (tenant: TestTenant, id: string) =>
  (await list(tenant)).items.find((key: { id: string }) => key.id === id);

const HOUR = 3_600_000;
const tenantOn = (plan: Plan) => createTestTenant({ plan, kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] });

/** A push of one measurement per KPI, through the API Gateway authorizer and the handler. */
const pushTo = (key: string, kpis: Kpi[]) =>
  kpis.length === 1
    ? pushOne(key, measurementFor(kpis[0]!))
    : pushBatch(
        key,
        kpis.map((kpi) => measurementFor(kpi)),
      );

/** Most tests make several keys: on the unlimited plan; the plan maximums have tests of their own. */
let tenant: TestTenant;
beforeAll(async () => {
  tenant = await tenantOn('enterprise');
});

describe('roll a key', () => {
  it('makes a new key with the same name and scope, shown once; the old one works for 24 h and says who replaced it', async () => {
    const original = await create(tenant, { name: 'Nightly export', kpiIds: [tenant.kpis[0]!.id] });
    const before = Date.now();
    const rolled = await roll(admin(tenant), original.body.id);
    const after = Date.now();
    expect(rolled.status).toBe(201);
    expect(rolled.body).toMatchObject({
      name: 'Nightly export',
      status: 'active',
      kpiIds: [tenant.kpis[0]!.id],
      expiresAt: null,
      replaces: { id: original.body.id, prefix: original.body.prefix },
      replacedBy: null,
      createdBy: { type: 'user', userId: tenant.users.ADMIN.id, email: tenant.users.ADMIN.email },
    });
    expect(rolled.body.key).toMatch(/^skm_/);
    expect(rolled.body.key).not.toBe(original.body.key);
    expect(rolled.body.id).not.toBe(original.body.id);

    const previous = rolled.body.previous;
    expect(previous).toMatchObject({
      id: original.body.id,
      status: 'active',
      replacedBy: { id: rolled.body.id, prefix: rolled.body.prefix },
      rolledBy: { type: 'user', userId: tenant.users.ADMIN.id },
    });
    expect(previous.key).toBeUndefined();
    const graceEnd = Date.parse(previous.expiresAt);
    expect(graceEnd).toBeGreaterThanOrEqual(before + 24 * HOUR);
    expect(graceEnd).toBeLessThanOrEqual(after + 24 * HOUR);

    // The list tells the same: the old key replaced by the new one, the new one replacing it.
    expect(await listed(tenant, original.body.id)).toMatchObject({
      status: 'active',
      expiresAt: previous.expiresAt,
      replacedBy: { id: rolled.body.id, prefix: rolled.body.prefix },
      rolledAt: previous.rolledAt,
      rolledBy: { type: 'user', userId: tenant.users.ADMIN.id, email: tenant.users.ADMIN.email },
    });
    expect(await listed(tenant, rolled.body.id)).toMatchObject({
      replaces: { id: original.body.id, prefix: original.body.prefix },
    });
    expect(JSON.stringify(await list(tenant))).not.toContain(rolled.body.key);

    // No downtime: during the grace period both keys push.
    expect((await pushTo(original.body.key, [tenant.kpis[0]!])).status).toBe(201);
    expect((await pushTo(rolled.body.key, [tenant.kpis[0]!])).status).toBe(200);
  });

  it('the old key expires exactly the grace period after the roll, and the answer names its creator with the e-mail', async () => {
    const original = await create(tenant, { name: 'Exact' });
    const rolled = await roll(admin(tenant), original.body.id, { gracePeriodHours: 48 });
    const { previous } = rolled.body;
    expect(Date.parse(previous.expiresAt) - Date.parse(previous.rolledAt)).toBe(48 * HOUR);
    expect(rolled.body.createdAt).toBe(previous.rolledAt);
    expect(previous.createdBy).toEqual({
      type: 'user',
      userId: tenant.users.ADMIN.id,
      email: tenant.users.ADMIN.email,
    });
    expect(previous.rolledBy).toEqual({
      type: 'user',
      userId: tenant.users.ADMIN.id,
      email: tenant.users.ADMIN.email,
    });
  });

  it('revoking the new key during the grace period ends the old key’s grace too: both stop at once', async () => {
    const original = await create(tenant, { name: 'Rolled by mistake' });
    const rolled = await roll(admin(tenant), original.body.id);
    expect((await pushTo(original.body.key, [tenant.kpis[0]!])).status).toBeOneOf([200, 201]);
    // The answer says that two keys stopped: the one revoked, and the old key whose grace it ended.
    const revoked = await revoke(admin(tenant), rolled.body.id);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({
      id: rolled.body.id,
      status: 'revoked',
      graceEnded: { id: original.body.id, prefix: original.body.prefix },
    });
    expect(await listed(tenant, rolled.body.id)).toMatchObject({ status: 'revoked' });
    const old = await listed(tenant, original.body.id);
    expect(old).toMatchObject({ status: 'expired', replacedBy: { id: rolled.body.id } });
    expect(Date.parse(old.expiresAt)).toBeLessThanOrEqual(Date.now());
    expect((await pushTo(original.body.key, [tenant.kpis[0]!])).body.type).toMatch(/\/api-key-expired$/);
    expect((await pushTo(rolled.body.key, [tenant.kpis[0]!])).body.type).toMatch(/\/api-key-revoked$/);
    // Revoking again changes nothing more, and an old key whose grace had ended keeps its expiry.
    const again = await revoke(admin(tenant), rolled.body.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ id: rolled.body.id, status: 'revoked', graceEnded: null });
    expect((await listed(tenant, original.body.id)).expiresAt).toBe(old.expiresAt);
  });

  it('revoking the new key after the grace period leaves the old key as it is', async () => {
    const original = await create(tenant, { name: 'Long done' });
    const rolled = await roll(admin(tenant), original.body.id, { gracePeriodHours: 0 });
    const before = await listed(tenant, original.body.id);
    const revoked = await revoke(admin(tenant), rolled.body.id);
    expect(revoked.status).toBe(200);
    expect(revoked.body.graceEnded).toBeNull();
    expect(await listed(tenant, original.body.id)).toEqual(before);
  });

  it('gracePeriodHours 0: the old key stops at once (403 api-key-expired), the new one works', async () => {
    const original = await create(tenant, { name: 'Compromised' });
    const rolled = await roll(admin(tenant), original.body.id, { gracePeriodHours: 0 });
    expect(rolled.status).toBe(201);
    expect(rolled.body.previous.status).toBe('expired');
    const refused = await pushTo(original.body.key, [tenant.kpis[1]!]);
    expect(refused.status).toBe(403);
    expect(refused.body.type).toMatch(/\/api-key-expired$/);
    expect((await pushTo(rolled.body.key, [tenant.kpis[1]!])).status).toBeOneOf([200, 201]);
  });

  it('accepts a request without a body (default 24 h) and 168 h, and refuses other grace periods naming the field', async () => {
    const withoutBody = await create(tenant, { name: 'no body' });
    // No body and no Content-Type, as API Gateway passes a POST without a body.
    const result = await (rollHandler as unknown as Handler)(
      apiEvent({
        method: 'POST',
        path: `/api/api-keys/${withoutBody.body.id}/roll`,
        pathParameters: { id: withoutBody.body.id },
        headers: admin(tenant),
      }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(201);
    const hours = (Date.parse(JSON.parse(result.body).previous.expiresAt) - Date.now()) / HOUR;
    expect(Math.round(hours)).toBe(24);

    const week = await create(tenant, { name: 'a week' });
    const rolledWeek = await roll(admin(tenant), week.body.id, { gracePeriodHours: 168 });
    expect(rolledWeek.status).toBe(201);
    expect(Math.round((Date.parse(rolledWeek.body.previous.expiresAt) - Date.now()) / HOUR)).toBe(168);

    const target = await create(tenant, { name: 'stays' });
    for (const body of [
      { gracePeriodHours: 169 },
      { gracePeriodHours: -1 },
      { gracePeriodHours: 1.5 },
      { gracePeriodHours: '24' },
      { gracePeriodHours: null },
    ]) {
      const refused = await roll(admin(tenant), target.body.id, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual(['gracePeriodHours']);
    }
    const unknown = await roll(admin(tenant), target.body.id, { grace: 2 });
    expect(unknown.body.errors).toEqual([{ path: 'grace', message: 'Unknown field' }]);
    // Nothing was rolled by the refused requests.
    expect(await listed(tenant, target.body.id)).toMatchObject({ replacedBy: null, expiresAt: null });
  });

  it('never lengthens the old key: one expiring sooner keeps its date; the new key keeps its lifetime unless expiresAt says otherwise', async () => {
    const soon = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'expires in 2 h',
      expiresAt: new Date(Date.now() + 2 * HOUR).toISOString(),
    });
    const rolled = await roll(admin(tenant), soon.id, { gracePeriodHours: 24 });
    expect(rolled.body.previous.expiresAt).toBe(soon.expiresAt);
    const lifetime = Date.parse(rolled.body.expiresAt) - Date.parse(rolled.body.createdAt);
    expect(lifetime).toBe(Date.parse(soon.expiresAt!) - Date.parse(soon.createdAt));

    const other = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'scheduled',
      expiresAt: new Date(Date.now() + 90 * 24 * HOUR).toISOString(),
    });
    const forever = await roll(admin(tenant), other.id, { expiresAt: null });
    expect(forever.body.expiresAt).toBeNull();
    const third = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'third' });
    const at = new Date(Date.now() + 30 * 24 * HOUR).toISOString();
    expect((await roll(admin(tenant), third.id, { expiresAt: at })).body.expiresAt).toBe(at);
    expect((await roll(admin(tenant), forever.body.id, { expiresAt: '2020-01-01T00:00:00Z' })).status).toBe(
      400,
    );
  });

  it('409 for a revoked, an expired or an already rolled key; 404 for an unknown id or another tenant', async () => {
    const revoked = await create(tenant, { name: 'revoked' });
    await invoke(revokeHandler, {
      method: 'DELETE',
      path: `/api/api-keys/${revoked.body.id}`,
      pathParameters: { id: revoked.body.id },
      headers: admin(tenant),
    });
    const notActive = await roll(admin(tenant), revoked.body.id);
    expect(notActive.status).toBe(409);
    expect(notActive.body).toMatchObject({
      status: 409,
      type: expect.stringMatching(/\/api-key-not-active$/),
      keyStatus: 'revoked',
    });
    expect(notActive.body.detail).toContain('revoked');

    const expired = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'expired',
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    expect((await roll(admin(tenant), expired.id)).body.type).toMatch(/\/api-key-not-active$/);

    const once = await create(tenant, { name: 'rolled once' });
    const first = await roll(admin(tenant), once.body.id);
    const again = await roll(admin(tenant), once.body.id);
    expect(again.status).toBe(409);
    expect(again.body.type).toMatch(/\/api-key-already-rolled$/);
    expect(again.body.replacedBy).toEqual({ id: first.body.id, prefix: first.body.prefix });

    expect((await roll(admin(tenant), randomUUID())).status).toBe(404);
    const other = await tenantOn('business');
    const theirs = await create(other, { name: 'theirs' });
    expect((await roll(admin(tenant), theirs.body.id)).status).toBe(404);
    expect(await listed(other, theirs.body.id)).toMatchObject({ replacedBy: null, expiresAt: null });
  });

  it('five simultaneous rolls of one key make exactly one new key', async () => {
    const owner = await tenantOn('free');
    const original = await create(owner, { name: 'raced' });
    const results = await Promise.all(Array.from({ length: 5 }, () => roll(admin(owner), original.body.id)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const refused of results.filter((r) => r.status !== 201)) {
      expect(refused.body.type).toMatch(/\/api-key-already-rolled$/);
    }
    expect((await list(owner)).items).toHaveLength(2);
  });
});

describe('roll at the plan maximum: the old key’s slot passes to the new one', () => {
  const slotHolders = async (tenantId: string) =>
    Object.keys(
      (await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.apiKeySlots(tenantId) })))
        .Item?.holders ?? {},
    );

  it('with all 3 free slots used, a roll succeeds, the new key holds the slot, and a create is still refused', async () => {
    const owner = await tenantOn('free');
    const ids = [];
    for (const name of ['a', 'b', 'c']) ids.push((await create(owner, { name })).body.id);
    expect((await create(owner, { name: 'd' })).status).toBe(409);

    const rolled = await roll(admin(owner), ids[0]);
    expect(rolled.status).toBe(201);
    expect((await slotHolders(owner.tenant.id)).sort()).toEqual([rolled.body.id, ids[1], ids[2]].sort());
    // Four keys work now (one in its grace period), but the plan's three slots are all held.
    const active = (await list(owner)).items.filter((key: { status: string }) => key.status === 'active');
    expect(active).toHaveLength(4);
    expect((await create(owner, { name: 'd' })).status).toBe(409);
    // Revoking the replacement frees its slot, even while the rolled key is in its grace period.
    await revokeApiKey(db, owner.tenant.id, rolled.body.id, undefined, publish);
    expect((await create(owner, { name: 'e' })).status).toBe(201);
  });

  it('a rebuild of the slot list (after a plan change) does not count a rolled key in its grace period', async () => {
    const owner = await tenantOn('free');
    const first = await create(owner, { name: 'one' });
    await create(owner, { name: 'two' });
    await roll(admin(owner), first.body.id); // 3 working keys, 2 slot holders
    await updateTenant(db, owner.tenant.id, { plan: 'free' }); // a plan change deletes the slot list
    expect(await slotHolders(owner.tenant.id)).toEqual([]);
    expect((await create(owner, { name: 'three' })).status).toBe(201);
    expect(await slotHolders(owner.tenant.id)).toHaveLength(3);
    expect((await create(owner, { name: 'four' })).status).toBe(409);
  });

  it('on the unlimited plan a roll keeps no slot list', async () => {
    const owner = await tenantOn('enterprise');
    const key = await create(owner, { name: 'big' });
    expect((await roll(admin(owner), key.body.id)).status).toBe(201);
    expect(
      (
        await db.client.send(
          new GetCommand({ TableName: db.tableName, Key: keys.apiKeySlots(owner.tenant.id) }),
        )
      ).Item,
    ).toBeUndefined();
  });
});

describe('KPI-scoped keys', () => {
  it('a key limited to KPIs of the tenant: listed with its scope; pushes to them; refused (403) for the others, naming them', async () => {
    const owner = await createTestTenant({ kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT', 'SWOT_KPI'] });
    const [inScope, outside1, outside2] = owner.kpis as [Kpi, Kpi, Kpi];
    const created = await create(owner, { name: 'cron of one KPI', kpiIds: [inScope.id] });
    expect(created.status).toBe(201);
    expect(created.body.kpiIds).toEqual([inScope.id]);
    expect((await listed(owner, created.body.id)).kpiIds).toEqual([inScope.id]);

    expect((await pushTo(created.body.key, [inScope])).status).toBe(201);
    const single = await pushTo(created.body.key, [outside1]);
    expect(single.status).toBe(403);
    expect(single.body).toMatchObject({
      type: 'https://strategy-service.example.com/problems/kpi-outside-key-scope',
      title: 'The API key may not push to these KPIs',
      outOfScopeKpiIds: [outside1.id],
    });
    expect(single.body.detail).toContain(outside1.id);
    const batch = await pushTo(created.body.key, [inScope, outside1, outside2]);
    expect(batch.status).toBe(403);
    expect(batch.body.outOfScopeKpiIds).toEqual([outside1.id, outside2.id]);
    // Refused before anything was written: the in-scope measurement of the batch is not stored either.
    const { Items = [] } = await db.client.send(
      new ScanCommand({
        TableName: db.tableName,
        FilterExpression: '#type = :m AND tenantId = :t',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':m': 'MEASUREMENT', ':t': owner.tenant.id },
      }),
    );
    expect(Items.map((item) => item.kpiId)).toEqual([inScope.id]);

    // A KPI of another tenant stays 404 (spec 5.2.4), scope or not: ownership is checked first.
    const other = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const foreign = await pushTo(created.body.key, [other.kpis[0]!]);
    expect(foreign.status).toBe(404);
    // An unscoped key of the same tenant pushes to every KPI.
    const unscoped = await create(owner, { name: 'all KPIs' });
    expect(unscoped.body.kpiIds).toBeNull();
    expect((await pushTo(unscoped.body.key, [outside1, outside2])).status).toBe(200);
  });

  it('a refused push of a scoped key writes its rate counter and its refusal as out of scope', async () => {
    const owner = await createTestTenant({ kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] });
    const key = await createApiKey(db, {
      tenantId: owner.tenant.id,
      name: 'scoped',
      kpiIds: [owner.kpis[0]!.id],
    });
    const probe = instrument(db);
    const deps: PushDeps = {
      db: probe.db,
      tenants: createTenantCache({ ttlSeconds: 30, load: (id) => getTenant(db, id) }),
      rateLimits: { windowSeconds: 60, perPlan: { free: 60, business: 300, enterprise: 3000 } },
    };
    const [measurement] = monthlyMeasurements([owner.kpis[1]!], 1, 2030);
    const refused = await pushMeasurements(deps, {
      apiKey: key.key,
      authorizer: { keyId: key.id, status: 'active' },
      input: Promise.resolve({ measurements: [measurement!] }),
    }).catch((error) => error);
    expect(refused.code).toBe('KPI_OUTSIDE_KEY_SCOPE');
    expect(probe.capacity().write).toBe(2);
    const today = `USAGE#${new Date().toISOString().slice(0, 10)}`;
    const writes = probe.calls.filter((c) => c.command !== 'BatchGetItemCommand');
    // The rate counter, then the refusal by reason, both on the key's day of usage.
    expect(writes.map((c) => c.input.Key?.sk)).toEqual([today, today]);
    expect(writes[1]?.input.ExpressionAttributeNames).toMatchObject({ '#refused': 'refused_scope' });
  });

  it('400 for an empty scope, more than 100 ids, a non-UUID, a repeated id, an unknown KPI or another tenant’s, naming each', async () => {
    const other = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const mine = tenant.kpis[0]!.id;
    const cases: [unknown, string[]][] = [
      [[], ['kpiIds']],
      [Array.from({ length: 101 }, () => randomUUID()), ['kpiIds']],
      [[mine, 'not-a-uuid'], ['kpiIds[1]']],
      [[mine, tenant.kpis[1]!.id, mine], ['kpiIds[2]']],
      [
        [mine, randomUUID(), other.kpis[0]!.id],
        ['kpiIds[1]', 'kpiIds[2]'],
      ],
      ['all', ['kpiIds']],
    ];
    const before = (await list(tenant)).items.length;
    for (const [kpiIds, paths] of cases) {
      const refused = await create(tenant, { name: 'scoped', kpiIds });
      expect(refused.status, JSON.stringify(kpiIds).slice(0, 80)).toBe(400);
      expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
    }
    expect((await list(tenant)).items.length).toBe(before);
    // null means every KPI.
    expect((await create(tenant, { name: 'explicitly all', kpiIds: null })).body.kpiIds).toBeNull();
  });

  it('with 100 KPIs in scope, the longest name and a full audit trail, the key item is one read unit, and a push stays within budget', async () => {
    const owner = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const kpis = [owner.kpis[0]!];
    for (let i = 1; i < 100; i++)
      kpis.push(await createKpi(db, owner.tenant.id, { type: 'BSC_KPI', name: `K${i}` }));
    const longest = '€'.repeat(100); // 100 characters of 3 UTF-8 bytes: the most bytes a name may take
    const by = { type: 'operator' as const, name: 'o'.repeat(64) };
    const first = await createApiKey(db, {
      tenantId: owner.tenant.id,
      name: longest,
      kpiIds: kpis.map((kpi) => kpi.id),
      expiresAt: new Date(Date.now() + 48 * HOUR).toISOString(),
      createdBy: by,
    });
    const { created } = await rollApiKey(db, { tenantId: owner.tenant.id, keyId: first.id, by }, publish);
    const { created: third } = await rollApiKey(
      db,
      { tenantId: owner.tenant.id, keyId: created.id, by },
      publish,
    );
    await revokeApiKey(db, owner.tenant.id, created.id, by, publish);
    // `created` now carries every attribute a key item can have: scope, replaces, replacedBy, rolled, revoked.
    const probe = instrument(db);
    await probe.db.client.send(
      new GetCommand({
        TableName: db.tableName,
        Key: keys.apiKey(hashApiKey(created.key)),
        ConsistentRead: true,
      }),
    );
    expect(probe.capacity().read).toBe(1);
    expect((await getApiKeyByHash(db, hashApiKey(created.key)))?.kpiIds).toHaveLength(100);

    // The push budgets hold for a scoped key: 2 round trips, ≤ 2 read units, ≤ 3 write units.
    const deps: PushDeps = {
      db: probe.db,
      tenants: createTenantCache({ ttlSeconds: 30, load: (id) => getTenant(db, id) }),
      rateLimits: { windowSeconds: 60, perPlan: { free: 60, business: 300, enterprise: 3000 } },
    };
    const request = (year: number) => ({
      apiKey: third.key,
      authorizer: { keyId: third.id, status: 'active' as const },
      input: Promise.resolve({ measurements: monthlyMeasurements([kpis[99]!], 1, year) }),
    });
    await pushMeasurements(deps, request(2040)); // warms the tenant cache
    probe.reset();
    await pushMeasurements(deps, request(2041));
    expect(probe.rounds()).toBe(2);
    expect(probe.capacity().read).toBeLessThanOrEqual(2);
    expect(probe.capacity().write).toBeLessThanOrEqual(3);

    // Batch of 50 to KPIs in scope: ≤ 52 write units.
    probe.reset();
    await pushMeasurements(deps, {
      ...request(0),
      input: Promise.resolve({ measurements: monthlyMeasurements(kpis, 50, 2042) }),
    });
    expect(probe.capacity().write).toBeLessThanOrEqual(52);
  });

  it('the stored scope is 16 bytes per KPI, and decodes to the ids it was given', () => {
    const ids = Array.from({ length: 100 }, () => randomUUID());
    const stored = encodeScope(ids);
    expect(Buffer.from(stored, 'base64url')).toHaveLength(1600);
    expect(decodeScope(stored)).toEqual(ids);
    expect(() => encodeScope([])).toThrow(RangeError);
    expect(() => encodeScope(['x'])).toThrow(RangeError);
  });

  it('a roll copies the source allowlist to the new key, which is refused from elsewhere as the old one was', async () => {
    const limited = await create(tenant, { name: 'limited roll', allowedSources: ['198.51.100.0/24'] });
    const rolled = await roll(admin(tenant), limited.body.id);
    expect(rolled.status).toBe(201);
    expect(rolled.body.allowedSources).toEqual(['198.51.100.0/24']);
    expect((await listed(tenant, rolled.body.id)).allowedSources).toEqual(['198.51.100.0/24']);
    const from = (sourceIp: string) =>
      pushOne(rolled.body.key, measurementFor(tenant.kpis[0]!), {}, sourceIp);
    // 201, or 200 where an earlier test stored this KPI's period.
    expect([200, 201]).toContain((await from('198.51.100.9')).status);
    const refused = await from('203.0.113.9');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      type: expect.stringMatching(/\/source-not-allowed$/),
      sourceIp: '203.0.113.9',
    });
    // A key without a list rolls to one without a list.
    const open = await create(tenant, { name: 'open roll' });
    expect((await roll(admin(tenant), open.body.id)).body.allowedSources).toBeNull();
  });

  it('a roll keeps the scope', async () => {
    const scoped = await create(tenant, { name: 'scoped roll', kpiIds: [tenant.kpis[1]!.id] });
    const rolled = await roll(admin(tenant), scoped.body.id);
    expect(rolled.body.kpiIds).toEqual([tenant.kpis[1]!.id]);
    expect((await pushTo(rolled.body.key, [tenant.kpis[0]!])).status).toBe(403);
  });
});

describe('audit trail: who created, rolled and revoked a key, and when', () => {
  it('records the user on create, roll and revoke, and the list names them with their e-mail', async () => {
    const owner = await tenantOn('business');
    const created = await create(owner, { name: 'audited' });
    const rolled = await roll(admin(owner), created.body.id);
    const revokedAt = Date.now();
    expect(
      (
        await invoke(revokeHandler, {
          method: 'DELETE',
          path: `/api/api-keys/${rolled.body.id}`,
          pathParameters: { id: rolled.body.id },
          headers: admin(owner),
        })
      ).status,
    ).toBe(200);
    const { ADMIN } = owner.users;
    const user = { type: 'user', userId: ADMIN.id, email: ADMIN.email };
    const old = await listed(owner, created.body.id);
    expect(old).toMatchObject({ createdBy: user, rolledBy: user, revokedBy: null });
    const replacement = await listed(owner, rolled.body.id);
    expect(replacement).toMatchObject({ createdBy: user, revokedBy: user, status: 'revoked' });
    expect(Date.parse(replacement.revokedAt)).toBeGreaterThanOrEqual(revokedAt - 1000);
    // Revoking again keeps the first revocation's time and actor.
    await revokeApiKey(
      db,
      owner.tenant.id,
      rolled.body.id,
      { type: 'operator', name: 'someone else' },
      publish,
    );
    expect(await listed(owner, rolled.body.id)).toMatchObject({
      revokedBy: user,
      revokedAt: replacement.revokedAt,
    });
  });

  it('keys made by an operator name the operator; keys stored before actors had types name their creator by id', async () => {
    const owner = await tenantOn('business');
    const byOperator = await createApiKey(db, {
      tenantId: owner.tenant.id,
      name: 'from the CLI',
      createdBy: { type: 'operator', name: 'alice' },
    });
    expect((await listed(owner, byOperator.id)).createdBy).toEqual({ type: 'operator', name: 'alice' });
    const legacy = await createApiKey(db, { tenantId: owner.tenant.id, name: 'legacy' });
    // As keys were stored before actors had types: the creating user's id as a plain string.
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.apiKey(hashApiKey(legacy.key)),
        UpdateExpression: 'SET createdBy = :id',
        ExpressionAttributeValues: { ':id': owner.users.EDITOR.id },
      }),
    );
    expect((await listed(owner, legacy.id)).createdBy).toEqual({
      type: 'user',
      userId: owner.users.EDITOR.id,
      email: owner.users.EDITOR.email,
    });
  });

  it('the list gives the plan: its key maximum (null: unlimited) and features', async () => {
    const enterprise = await createTestTenant({ plan: 'enterprise', features: [], kpiTypes: [] });
    expect((await list(enterprise)).plan).toEqual({ name: 'enterprise', apiKeyLimit: null, features: [] });
    const free = await tenantOn('free');
    expect((await list(free)).plan).toEqual({
      name: 'free',
      apiKeyLimit: 3,
      features: ['kpi_push_measurement'],
    });
  });
});

describeJwtAuth(
  'POST /api-keys/{id}/roll',
  async (headers, owner) => {
    const { id } = await createApiKey(db, { tenantId: owner.tenant.id, name: 'auth case' });
    return roll(headers, id);
  },
  { roles: ['ADMIN'] },
);
