import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { indexExistingKeyExpiries, runAlertCheck } from '../../../../lib/alerts/check';
import { hashApiKey } from '../../../../lib/api-keys/key-format';
import { createApiKey, revokeApiKey, rollApiKey } from '../../../../lib/api-keys/service';
import { INDEX_SHARDS, keys } from '../../../../lib/db/keys';
import { listRecentMeasurements } from '../../../../lib/db/measurements';
import { updateKpi } from '../../../../lib/kpis/settings';
import type { WebhookEvent } from '../../../../lib/webhooks/events';
import {
  createTestTenant,
  db,
  publish as publishToWebhooks,
  putMeasurement,
  type TestTenant,
} from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';
import { measurementFor, pushOne } from '../../../support/push';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The check runs on a real table with an injected clock (`now`) and a publisher that records what it
 * is given. Every test has its tenants of its own; the table is shared by the file, so a run also sees
 * the other tests' KPIs and keys, and each test looks at the events of its own tenants.
 */
const published: WebhookEvent[] = [];
const publish = async (event: WebhookEvent) => {
  published.push(event);
};
const run = (now: number, options: { db?: typeof db; publish?: typeof publish } = {}) =>
  runAlertCheck({ db: options.db ?? db, publish: options.publish ?? publish, now });
const eventsOf = (tenant: TestTenant, type?: WebhookEvent['type']) =>
  published.filter((event) => event.tenantId === tenant.tenant.id && (!type || event.type === type));

const iso = (ms: number) => new Date(ms).toISOString();

describe('kpi.quiet: once per quiet spell', () => {
  let tenant: TestTenant;
  let quietSince: number;
  beforeAll(async () => {
    tenant = await createTestTenant({ kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] });
  });

  it('a daily KPI with no push for 25 h yields exactly one kpi.quiet over repeated runs', async () => {
    const [kpi] = tenant.kpis;
    const base = Date.now();
    const arrived = iso(base - 25 * HOUR_MS);
    await putMeasurement(kpi!, '2026-11-01', '2026-11-01', 1, { receivedAt: arrived, updatedAt: arrived });
    await updateKpi(db, tenant.tenant.id, kpi!.id, { cadence: 'daily' });
    // Before cadence + grace (24 h + 1 h) has passed, nothing.
    await run(base - HOUR_MS);
    expect(eventsOf(tenant)).toEqual([]);
    for (const later of [0, 15, 30, 45, 24 * 60]) await run(base + later * 60_000);
    quietSince = base;
    expect(eventsOf(tenant)).toEqual([
      {
        type: 'kpi.quiet',
        tenantId: tenant.tenant.id,
        occurredAt: iso(quietSince),
        data: {
          kpiId: kpi!.id,
          name: kpi!.name,
          cadence: 'daily',
          graceHours: 1,
          lastMeasurementAt: arrived,
          quietSince: iso(quietSince),
        },
      },
    ]);
  });

  it('a push ends the spell; the next quiet spell notifies again, once', async () => {
    const [kpi] = tenant.kpis;
    const key = (await createApiKey(db, { tenantId: tenant.tenant.id, name: 'job' })).key;
    const pushed = await pushOne(
      key,
      measurementFor(kpi!, { periodStart: '2026-11-01', periodEnd: '2026-11-30' }),
    );
    expect(pushed.status).toBe(201);
    const [stored] = await listRecentMeasurements(db, kpi!.id, 1);
    expect(stored?.periodStart).toBe('2026-11-01');
    const arrivedAt = Date.parse(stored?.receivedAt as string);
    await run(arrivedAt + 2 * HOUR_MS);
    await run(arrivedAt + 24 * HOUR_MS);
    expect(eventsOf(tenant)).toHaveLength(1);
    await run(arrivedAt + 25 * HOUR_MS);
    await run(arrivedAt + 26 * HOUR_MS);
    const events = eventsOf(tenant);
    expect(events).toHaveLength(2);
    expect(events[1]?.data).toMatchObject({
      kpiId: kpi!.id,
      lastMeasurementAt: stored?.receivedAt,
      quietSince: iso(arrivedAt + 25 * HOUR_MS),
    });
  });

  it('a KPI that never received anything is quiet a cadence and grace after its creation; none is never quiet', async () => {
    const [, empty] = tenant.kpis;
    const created = Date.parse(empty!.createdAt);
    await run(created + 8 * DAY_MS);
    expect(eventsOf(tenant).filter((e) => e.data.kpiId === empty!.id)).toEqual([]);
    await updateKpi(db, tenant.tenant.id, empty!.id, { cadence: 'weekly', graceHours: 0 });
    await run(created + 7 * DAY_MS - 1);
    expect(eventsOf(tenant).filter((e) => e.data.kpiId === empty!.id)).toEqual([]);
    await run(created + 7 * DAY_MS);
    await run(created + 8 * DAY_MS);
    const events = eventsOf(tenant).filter((e) => e.data.kpiId === empty!.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ cadence: 'weekly', graceHours: 0, lastMeasurementAt: null });
    // Back to none: out of the index, nothing more.
    await updateKpi(db, tenant.tenant.id, empty!.id, { cadence: 'none' });
    await run(created + 30 * DAY_MS);
    expect(eventsOf(tenant).filter((e) => e.data.kpiId === empty!.id)).toHaveLength(1);
  });

  it('two checks at the same time send one kpi.quiet between them', async () => {
    const racing = await createTestTenant({ kpiTypes: ['THEME_KPI'] });
    const [kpi] = racing.kpis;
    await updateKpi(db, racing.tenant.id, kpi!.id, { cadence: 'daily', graceHours: 0 });
    const at = Date.parse(kpi!.createdAt) + 2 * DAY_MS;
    await Promise.all([run(at), run(at), run(at)]);
    expect(eventsOf(racing)).toHaveLength(1);
  });

  it('a publish that fails is taken back and sent by the next run', async () => {
    const failing = await createTestTenant({ kpiTypes: ['THEME_KPI'] });
    const [kpi] = failing.kpis;
    await updateKpi(db, failing.tenant.id, kpi!.id, { cadence: 'daily', graceHours: 0 });
    const at = Date.parse(kpi!.createdAt) + 2 * DAY_MS;
    const refuse = async (event: WebhookEvent) => {
      if (event.tenantId === failing.tenant.id) throw new Error('queue unavailable');
      published.push(event);
    };
    const result = await run(at, { publish: refuse });
    expect(result.failed).toBe(1);
    expect(eventsOf(failing)).toEqual([]);
    await run(at);
    await run(at);
    expect(eventsOf(failing)).toHaveLength(1);
  });
});

describe('api_key.expiring: 7 days and 1 day before, once each', () => {
  it('a key expiring in 6 days yields the 7-day notice once over repeated runs, and the 1-day one later', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const base = Date.now();
    const expiresAt = iso(base + 6 * DAY_MS);
    const key = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'Nightly export', expiresAt });
    for (const hours of [0, 0.25, 0.5, 24]) await run(base + hours * HOUR_MS);
    expect(eventsOf(tenant)).toEqual([
      {
        type: 'api_key.expiring',
        tenantId: tenant.tenant.id,
        occurredAt: iso(base),
        data: { keyId: key.id, name: 'Nightly export', prefix: key.prefix, expiresAt, daysLeft: 6 },
      },
    ]);
    expect(JSON.stringify(eventsOf(tenant))).not.toContain(key.key);
    // Missed runs: the next one is 12 hours before expiry, and sends the 1-day notice once.
    for (const hours of [5 * 24 + 12, 5 * 24 + 13]) await run(base + hours * HOUR_MS);
    const events = eventsOf(tenant);
    expect(events).toHaveLength(2);
    expect(events[1]?.data).toMatchObject({ keyId: key.id, daysLeft: 1 });
    // Expired: nothing more.
    await run(base + 7 * DAY_MS);
    expect(eventsOf(tenant)).toHaveLength(2);
  });

  it('a notice whose publish fails is taken back to the notice before it, and sent by the next run', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const base = Date.now();
    const key = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'flaky',
      expiresAt: iso(base + 6 * DAY_MS),
    });
    const refuse = async (event: WebhookEvent) => {
      if (event.tenantId === tenant.tenant.id) throw new Error('queue unavailable');
      published.push(event);
    };
    // The 7-day notice fails (none before it), then goes out.
    expect((await run(base, { publish: refuse })).failed).toBe(1);
    expect(eventsOf(tenant)).toEqual([]);
    await run(base);
    expect(eventsOf(tenant).map((event) => event.data.daysLeft)).toEqual([6]);
    // The 1-day notice fails (the 7-day one before it stays), then goes out once.
    const late = base + 5 * DAY_MS + 12 * HOUR_MS;
    expect((await run(late, { publish: refuse })).failed).toBe(1);
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.apiKey(hashApiKey(key.key)) }),
    );
    expect(Item?.expiryNoticeDays).toBe(7);
    await run(late);
    await run(late);
    expect(eventsOf(tenant).map((event) => [event.data.keyId, event.data.daysLeft])).toEqual([
      [key.id, 6],
      [key.id, 1],
    ]);
  });

  it('a key first seen with hours left gets the 1-day notice only', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const base = Date.now();
    await createApiKey(db, { tenantId: tenant.tenant.id, name: 'short', expiresAt: iso(base + 10 * DAY_MS) });
    await run(base + 9 * DAY_MS + 12 * HOUR_MS);
    await run(base + 9 * DAY_MS + 13 * HOUR_MS);
    expect(eventsOf(tenant).map((event) => event.data.daysLeft)).toEqual([1]);
  });

  it('revoked keys and replaced (rolled) keys get none', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const base = Date.now();
    const expiresAt = iso(base + 3 * DAY_MS);
    const revoked = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'revoked', expiresAt });
    await revokeApiKey(db, tenant.tenant.id, revoked.id, undefined, publishToWebhooks);
    const rolled = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'rolled', expiresAt });
    const roll = await rollApiKey(
      db,
      { tenantId: tenant.tenant.id, keyId: rolled.id, gracePeriodHours: 24 },
      publishToWebhooks,
    );
    await run(base);
    await run(base + 2 * DAY_MS + 12 * HOUR_MS);
    const ids = eventsOf(tenant).map((event) => event.data.keyId);
    expect(ids).not.toContain(revoked.id);
    expect(ids).not.toContain(rolled.id);
    // The replacement inherits nothing it was not given: it is notified only if it expires itself.
    expect(ids.every((id) => id === roll.created.id)).toBe(true);
  });

  it('a key expiring exactly 7 days from the run gets the 7-day notice', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const base = Date.now();
    const key = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'edge',
      expiresAt: iso(base + 7 * DAY_MS),
    });
    await run(base);
    expect(eventsOf(tenant).map((event) => [event.data.keyId, event.data.daysLeft])).toEqual([[key.id, 7]]);
  });

  it('a second run at the same moment writes nothing: what is notified, revoked or rolled costs no write', async () => {
    const tenant = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    await updateKpi(db, tenant.tenant.id, tenant.kpis[0]!.id, { cadence: 'daily', graceHours: 0 });
    const base = Date.now();
    const expiresAt = iso(base + 3 * DAY_MS);
    await createApiKey(db, { tenantId: tenant.tenant.id, name: 'notified', expiresAt });
    const revoked = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'revoked', expiresAt });
    await revokeApiKey(db, tenant.tenant.id, revoked.id, undefined, publishToWebhooks);
    const rolled = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'rolled', expiresAt });
    await rollApiKey(
      db,
      { tenantId: tenant.tenant.id, keyId: rolled.id, gracePeriodHours: 24 },
      publishToWebhooks,
    );
    const at = base + 2 * DAY_MS + 12 * HOUR_MS;
    await run(at);
    expect(eventsOf(tenant).length).toBeGreaterThanOrEqual(2);
    const probe = instrument(db);
    const again = await run(at, { db: probe.db });
    expect(again).toMatchObject({ quietKpis: 0, expiringKeys: 0, failed: 0 });
    expect(probe.calls.filter((call) => call.command === 'UpdateItemCommand')).toEqual([]);
  });

  it('two checks at the same time send one notice between them', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const base = Date.now();
    await createApiKey(db, { tenantId: tenant.tenant.id, name: 'raced', expiresAt: iso(base + 2 * DAY_MS) });
    await Promise.all([run(base), run(base), run(base)]);
    expect(eventsOf(tenant)).toHaveLength(1);
  });
});

describe('tenants and the table', () => {
  it('each event goes to the tenant of its KPI or key, and a quiet tenant’s alert says nothing of another', async () => {
    const [quiet, busy] = await Promise.all([
      createTestTenant({ kpiTypes: ['BSC_KPI'] }),
      createTestTenant({ kpiTypes: ['BSC_KPI'] }),
    ]);
    const base = Date.now();
    await updateKpi(db, quiet.tenant.id, quiet.kpis[0]!.id, { cadence: 'daily' });
    await updateKpi(db, busy.tenant.id, busy.kpis[0]!.id, { cadence: 'weekly' });
    const recent = iso(base - HOUR_MS);
    await putMeasurement(busy.kpis[0]!, '2026-11-03', '2026-11-03', 1, {
      receivedAt: recent,
      updatedAt: recent,
    });
    const created = Date.parse(quiet.kpis[0]!.createdAt);
    await run(created + 25 * HOUR_MS);
    await run(created + 26 * HOUR_MS);
    expect(eventsOf(busy)).toEqual([]);
    const events = eventsOf(quiet);
    expect(events).toHaveLength(1);
    expect(events[0]?.data.kpiId).toBe(quiet.kpis[0]!.id);
    expect(JSON.stringify(events)).not.toContain(busy.tenant.id);
    expect(JSON.stringify(events)).not.toContain(busy.kpis[0]!.id);
  });

  it('makes no Scan: Queries of the index and the KPI partitions, and conditional updates only', async () => {
    const tenant = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    await updateKpi(db, tenant.tenant.id, tenant.kpis[0]!.id, { cadence: 'daily', graceHours: 0 });
    const base = Date.now();
    await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: randomUUID(),
      expiresAt: iso(base + 5 * DAY_MS),
    });
    const probe = instrument(db);
    const result = await run(base + 2 * DAY_MS, { db: probe.db });
    expect(result.quietKpis).toBeGreaterThanOrEqual(1);
    expect(result.expiringKeys).toBeGreaterThanOrEqual(1);
    const commands = new Set(probe.calls.map((call) => call.command));
    expect([...commands].sort()).toEqual(['QueryCommand', 'UpdateItemCommand']);
    expect(commands.has('ScanCommand')).toBe(false);
    const indexQueries = probe.calls.filter(
      (call) => call.command === 'QueryCommand' && call.input.IndexName,
    );
    expect(new Set(indexQueries.map((call) => call.input.IndexName))).toEqual(new Set(['gsi2']));
    // One range Query per shard of the KPI index, and one per UTC day bucket of the next 7 days (8 buckets).
    expect(indexQueries).toHaveLength(INDEX_SHARDS + 8);
    // A key's notice is one conditional update of an item in both indexes: 3 write units. A KPI's
    // notice or move changes its gsi2 sort key too (the index's delete and put): 4.
    expect(probe.capacity().write).toBe(
      4 * (result.quietKpis + result.kpisRescheduled) + 3 * result.expiringKeys,
    );
  });
});

describe('a run costs what is due, never what exists', () => {
  it('KPIs that receive their pushes are looked at once per cadence and grace, not once per run; the push writes no KPI item', async () => {
    const count = async (size: number) => {
      const tenant = await createTestTenant({
        kpiTypes: Array.from({ length: size }, () => 'THEME_KPI' as const),
      });
      const key = (await createApiKey(db, { tenantId: tenant.tenant.id, name: 'job' })).key;
      for (const kpi of tenant.kpis)
        await updateKpi(db, tenant.tenant.id, kpi.id, { cadence: 'daily', graceHours: 0 });
      const start = Date.now();
      // The first look moves each entry to when its KPI would go quiet.
      await run(start);
      const entries = () =>
        Promise.all(
          tenant.kpis.map(async (kpi) => {
            const { Item } = await db.client.send(
              new GetCommand({ TableName: db.tableName, Key: keys.kpi(kpi.id) }),
            );
            return Item?.gsi2sk;
          }),
        );
      const before = await entries();
      for (const kpi of tenant.kpis) {
        const pushed = await pushOne(
          key,
          measurementFor(kpi, { periodStart: '2026-10-01', periodEnd: '2026-10-31' }),
        );
        expect(pushed.status).toBe(201);
      }
      // The push writes no KPI item: the entries are where the first look put them.
      expect(await entries()).toEqual(before);
      const probe = instrument(db);
      const runs = [15, 30, 60, 23 * 60].map((minutes) => run(start + minutes * 60_000, { db: probe.db }));
      const results = await Promise.all(runs);
      const kpiReads = probe.calls.filter((call) => call.command === 'QueryCommand' && !call.input.IndexName);
      return {
        results,
        calls: probe.calls.length,
        kpiReads: kpiReads.length,
        tenant,
      };
    };
    const few = await count(2);
    const many = await count(12);
    // Four runs: one range Query per shard and 8 key buckets each, and nothing per KPI.
    expect(few.kpiReads).toBe(0);
    expect(many.kpiReads).toBe(0);
    expect(many.calls).toBe(few.calls);
    expect(many.calls).toBe(4 * (INDEX_SHARDS + 8));
    expect(many.results.every((result) => result.kpisChecked === 0)).toBe(true);
    // A day after the first look they are due, and quiet: one look each.
    const due = await run(Date.now() + 2 * DAY_MS);
    expect(eventsOf(many.tenant, 'kpi.quiet')).toHaveLength(12);
    expect(due.kpisChecked).toBeGreaterThanOrEqual(12);
  });
});

describe('keys made before the expiry index', () => {
  it('are not seen until indexExistingKeyExpiries puts them in; it indexes each once, and no revoked or expired key', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const base = Date.now();
    const old = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'old',
      expiresAt: iso(base + 5 * DAY_MS),
    });
    const revoked = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'old revoked',
      expiresAt: iso(base + 5 * DAY_MS),
    });
    await revokeApiKey(db, tenant.tenant.id, revoked.id, undefined, publishToWebhooks);
    const past = await createApiKey(db, {
      tenantId: tenant.tenant.id,
      name: 'old expired',
      expiresAt: iso(base + DAY_MS),
    });
    // As a key stored before the index existed: without its index attributes.
    for (const created of [old, revoked, past]) {
      await db.client.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: keys.apiKey(hashApiKey(created.key)),
          UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
        }),
      );
    }
    await run(base);
    expect(eventsOf(tenant)).toEqual([]);
    const probe = instrument(db);
    // Indexed two days on: `old expired` has expired by then.
    expect(await indexExistingKeyExpiries(probe.db, base + 2 * DAY_MS)).toBeGreaterThanOrEqual(1);
    expect(await indexExistingKeyExpiries(db, base + 2 * DAY_MS)).toBe(0);
    // A revoked key and one past its expiry are passed over without a write.
    const updated = probe.calls
      .filter((call) => call.command === 'UpdateItemCommand')
      .map((call) => (call.input.Key as { pk: string }).pk);
    expect(updated).toContain(keys.apiKey(hashApiKey(old.key)).pk);
    expect(updated).not.toContain(keys.apiKey(hashApiKey(revoked.key)).pk);
    expect(updated).not.toContain(keys.apiKey(hashApiKey(past.key)).pk);
    await run(base);
    expect(eventsOf(tenant).map((event) => event.data.keyId)).toEqual([old.id]);
  });
});
