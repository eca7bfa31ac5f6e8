import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as workerHandler } from '../../../../functions/run-pull-integrations';
import { handler as schedulerHandler } from '../../../../functions/schedule-pull-integrations';
import { INDEX_SHARDS } from '../../../../lib/db/keys';
import { listMeasurements } from '../../../../lib/db/measurements';
import {
  dueIntegrations,
  getIntegration,
  runPage,
  type StoredIntegration,
} from '../../../../lib/db/pull-integrations';
import { getTenant, updateTenant } from '../../../../lib/db/tenants';
import { deliveryPage } from '../../../../lib/db/webhooks';
import type { PullSchedule } from '../../../../lib/domain/pull-integration';
import { uuidv7 } from '../../../../lib/ids';
import { createIntegration, updateIntegration } from '../../../../lib/pull/definitions';
import { pullLocalQueue } from '../../../../lib/pull/local-queue';
import { runMessage, runNow } from '../../../../lib/pull/run';
import { schedulePass } from '../../../../lib/pull/scheduler';
import { createTenantLimiter } from '../../../../lib/pull/tenant-limit';
import { pullDeps, pullRunDeps, webhookDeps } from '../../../../lib/runtime';
import { createTenantCache } from '../../../../lib/tenant-cache';
import { createEndpoint } from '../../../../lib/webhooks/service';
import {
  createTestTenant,
  db,
  pullIntegrationRecord,
  storePullIntegration,
  type TestTenant,
} from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';
import { captureOutput } from '../../../support/output';
import { type PullSource, startPullSource } from '../../../support/pull-source';

/**
 * The scheduler and its worker (lib/pull/run.ts) against DynamoDB Local and a source on this machine:
 * due slots found with Queries of the sparse index, claimed once however many passes run, each run
 * once; failing, back-off and disabling; the worker's batch.
 */

let tenant: TestTenant;
let source: PullSource;
beforeAll(async () => {
  // Enterprise: the scenarios store some 260 integrations for it, past a smaller plan's maximum.
  tenant = await createTestTenant({
    plan: 'enterprise',
    features: ['kpi_push_measurement', 'kpi_api_integration'],
    kpiTypes: ['BSC_KPI'],
    // The integrations of these tests stand for the day they run in.
    period: 'day',
  });
  source = await startPullSource();
});
afterAll(() => source.close());

/**
 * An integration written as the service writes it, due at `dueAt`. Each scenario uses a window of time
 * of its own, in the past and earlier than the scenarios before it, so the due Query of one scenario
 * sees none of the others' entries (their leases end in their own, later, windows).
 */
const putDue = (dueAt: string, path = '/ok', schedule: PullSchedule = { every: 'day' }) =>
  storePullIntegration(pullIntegrationRecord(tenant.kpis[0]!, dueAt, { url: source.url(path), schedule }));

const queueNamed = () => pullLocalQueue(db);

describe('the scheduler finds due integrations with Queries that grow with the due ones only', () => {
  const measure = async (now: number, perShard = 10) => {
    const probe = instrument(db);
    const result = await schedulePass({
      db: probe.db,
      queue: { send: async () => {}, retryLater: async () => {} },
      now,
      perShard,
    });
    const commands = probe.calls.map((c) => c.command);
    return { result, commands, queries: commands.filter((c) => c === 'QueryCommand').length };
  };
  it('counts its DynamoDB requests: Queries of the index and one claim per due slot, never a Scan, whatever waits for later', async () => {
    const passAt = Date.parse('2005-06-01T00:10:00.000Z');
    const dueAt = '2005-06-01T00:00:00.000Z';
    // 5 due.
    for (let i = 0; i < 5; i++) await putDue(dueAt);
    const few = await measure(passAt);
    expect(few.result).toMatchObject({ due: 5, claimed: 5, skipped: 0 });
    // One range Query per shard of the index, whatever is due.
    expect(few.queries).toBe(INDEX_SHARDS);
    expect(few.commands.filter((c) => c === 'UpdateItemCommand')).toHaveLength(5);
    expect(few.commands.filter((c) => !['QueryCommand', 'UpdateItemCommand'].includes(c))).toEqual([]);

    // The same 5 due among 200 that wait for later (an earlier window, see putDue): the same requests.
    const laterPass = Date.parse('2004-06-01T00:10:00.000Z');
    for (let i = 0; i < 5; i++) await putDue('2004-06-01T00:00:00.000Z');
    for (let i = 0; i < 200; i++) await putDue('2004-06-02T00:00:00.000Z');
    const amongMany = await measure(laterPass);
    expect(amongMany.result).toMatchObject({ due: 5, claimed: 5 });
    expect(amongMany.commands).toEqual(few.commands);

    // 26 due: the same Queries and more claims, 25 at once and then the last; each once.
    const third = Date.parse('2003-06-01T00:10:00.000Z');
    for (let i = 0; i < 26; i++) await putDue('2003-06-01T00:00:00.000Z');
    const many = await measure(third);
    expect(many.result).toEqual({ due: 26, claimed: 26, skipped: 0, failed: 0, deferred: 0 });
    expect(many.queries).toBe(INDEX_SHARDS);
    expect(many.commands.filter((c) => c === 'UpdateItemCommand')).toHaveLength(26);
    expect(many.commands).not.toContain('ScanCommand');
  });

  it('caps a pass at perShard entries of each shard; the next passes claim the rest', async () => {
    // Past every other test's entries and leases: the passes here see everything due in the table.
    const dueAt = '2099-03-01T00:00:00.000Z';
    const passAt = Date.parse('2099-03-01T00:10:00.000Z');
    const ids = new Set<string>();
    // Two in one shard at least (17 integrations in 16 shards).
    for (let i = 0; i < INDEX_SHARDS + 1; i++) ids.add((await putDue(dueAt)).id);
    const handed: string[] = [];
    const pass = async () => {
      const probe = instrument(db);
      const queue = {
        send: async (body: string) => void handed.push(JSON.parse(body).integrationId),
        retryLater: async () => {},
      };
      const result = await schedulePass({ db: probe.db, queue, now: passAt, perShard: 1 });
      expect(probe.calls.filter((c) => c.command === 'QueryCommand')).toHaveLength(INDEX_SHARDS);
      expect(result.due).toBeLessThanOrEqual(INDEX_SHARDS);
      return result;
    };
    let passes = 0;
    while ((await pass()).due > 0) passes++;
    // More than one pass, since one pass reads one entry a shard; each of ours handed over once.
    expect(passes).toBeGreaterThan(1);
    const ours = handed.filter((id) => ids.has(id));
    expect(ours.sort()).toEqual([...ids].sort());
  });
});

describe('two scheduler passes at once', () => {
  it('claim and hand over each due slot once, and the worker fetches each once', async () => {
    source.answers['/once'] = { json: { value: 1 } };
    const dueAt = '2002-06-01T00:00:00.000Z';
    const integrations = await Promise.all(Array.from({ length: 12 }, () => putDue(dueAt, '/once')));
    const queue = queueNamed();
    const before = (await queue.receive()).length;
    expect(before).toBe(0);
    const now = Date.parse('2002-06-01T00:05:00.000Z');
    const [a, b] = await Promise.all([schedulePass({ db, queue, now }), schedulePass({ db, queue, now })]);
    expect(a.due).toBe(12);
    expect(a.claimed + b.claimed).toBe(12);
    expect(a.skipped + b.skipped).toBe(a.due + b.due - 12);
    const messages = await queue.receive();
    const slots = messages.map((m) => JSON.parse(m.body) as { integrationId: string });
    expect(slots.map((m) => m.integrationId).sort()).toEqual(integrations.map((i) => i.id).sort());
    // A third pass now finds nothing due: the claims moved the entries to their lease.
    expect((await schedulePass({ db, queue, now })).due).toBe(0);
    // The worker: each slot run once; a repeated delivery of a message runs nothing.
    const deps = { ...pullRunDeps, now: () => now };
    for (const message of messages) expect((await runMessage(deps, message.body)).kind).toBe('ran');
    for (const message of messages) {
      expect(await runMessage(deps, message.body)).toEqual({ kind: 'skipped', reason: 'not-claimed' });
      await queue.delete(message.receipt);
    }
    expect(source.requestsTo('/once')).toHaveLength(12);
    for (const { id } of integrations) {
      const stored = await getIntegration(db, tenant.tenant.id, id);
      expect(stored?.lastRun?.outcome).toBe('stored');
      expect(stored?.nextRunAt).toBe('2002-06-02T00:00:00.000Z');
    }
  });
});

describe('a slot that cannot be handed to the worker', () => {
  it('is counted as failed and logged, and is due again after its lease', async () => {
    const dueAt = '1997-01-01T00:00:00.000Z';
    const integration = await putDue(dueAt, '/never');
    const now = Date.parse(dueAt);
    const broken = {
      send: async () => {
        throw new Error('queue down');
      },
      retryLater: async () => {},
    };
    const { result, lines } = await captureOutput(() => schedulePass({ db, queue: broken, now }));
    expect(result).toEqual({ due: 1, claimed: 0, skipped: 0, failed: 1, deferred: 0 });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        message: 'a due pull integration was not handed to the worker; due again after the lease',
      }),
    );
    expect((await dueIntegrations(db, now)).map((d) => d.integrationId)).not.toContain(integration.id);
  });
});

describe('credentials that no longer open', () => {
  it('fail the run as auth, saying to set them again, without fetching', async () => {
    source.answers['/locked'] = { json: { value: 1 } };
    // A copy of a due integration, with bearer credentials sealed under another key.
    const integration = await putDue('1996-01-01T00:00:00.000Z', '/locked');
    const locked = {
      ...integration,
      id: uuidv7(),
      auth: { type: 'bearer' as const, token: { set: true as const } },
      sealedSecrets: 'p1.sealed-under-a-key-the-service-no-longer-has',
    };
    await storePullIntegration(locked);
    const run = await runNow(pullRunDeps, tenant.tenant.id, locked.id);
    expect(run).toMatchObject({
      errorClass: 'auth',
      error: 'the stored credentials could not be opened: set them again',
    });
    expect(source.requestsTo('/locked')).toEqual([]);
  });
});

describe('a failing source', () => {
  it('is failing after 3 failed runs and backs off; after 24 hours of failures it is disabled, audited and announced once; a PATCH makes it due again', async () => {
    source.answers['/down'] = { status: 503, json: {} };
    const endpoint = await createEndpoint(webhookDeps, {
      tenantId: tenant.tenant.id,
      url: source.url('/hooks'),
      eventTypes: ['integration.disabled'],
      createdBy: null,
    });
    let clock = Date.parse('2001-03-01T00:00:00.000Z');
    const integration = await putDue(new Date(clock).toISOString(), '/down', { every: 'hour' });
    const deps = { ...pullRunDeps, now: () => clock };
    const queue = queueNamed();
    const states: { status: string; failures: number; next: string | null }[] = [];
    const audits: any[] = [];
    for (let i = 0; i < 12; i++) {
      const { lines } = await captureOutput(async () => {
        await schedulePass({ db, queue, now: clock });
        for (const message of await queue.receive()) {
          await runMessage(deps, message.body);
          await queue.delete(message.receipt);
        }
      });
      audits.push(...lines.filter((line) => line.audit === 'integration.disabled'));
      const stored = (await getIntegration(db, tenant.tenant.id, integration.id)) as StoredIntegration;
      states.push({ status: stored.status, failures: stored.consecutiveFailures, next: stored.nextRunAt });
      if (stored.nextRunAt === null) break;
      clock = Date.parse(stored.nextRunAt);
    }
    const hour = 3_600_000;
    const start = Date.parse('2001-03-01T00:00:00.000Z');
    const at = (ms: number) => new Date(ms).toISOString();
    expect(states).toEqual([
      { status: 'active', failures: 1, next: at(start + hour) },
      { status: 'active', failures: 2, next: at(start + 2 * hour) },
      // Failing from the third: twice the interval, then doubling, up to a day.
      { status: 'failing', failures: 3, next: at(start + 4 * hour) },
      { status: 'failing', failures: 4, next: at(start + 8 * hour) },
      { status: 'failing', failures: 5, next: at(start + 16 * hour) },
      { status: 'failing', failures: 6, next: at(start + 32 * hour) },
      // 32 hours after the first failure: disabled, and out of the index.
      { status: 'disabled', failures: 7, next: null },
    ]);
    expect(audits).toEqual([
      expect.objectContaining({ audit: 'integration.disabled', integrationId: integration.id, failures: 7 }),
    ]);
    const { items } = await deliveryPage(db, endpoint.id, { limit: 10 });
    expect(items).toHaveLength(1);
    expect(items[0]?.eventType).toBe('integration.disabled');
    expect(JSON.parse(items[0]!.payload)).toMatchObject({
      type: 'integration.disabled',
      data: { integrationId: integration.id, name: integration.name, failures: 7, failingSince: at(start) },
    });
    const later = Date.parse('2001-03-10T00:00:00.000Z');
    expect((await dueIntegrations(db, later)).map((d) => d.integrationId)).not.toContain(integration.id);
    // A PATCH: active again, due at once.
    const patched = await updateIntegration({ ...deps, now: () => later }, tenant.tenant.id, integration.id, {
      name: 'Fixed',
    });
    expect(patched).toMatchObject({
      status: 'active',
      consecutiveFailures: 0,
      failingSince: null,
      disabledAt: null,
    });
    expect((await dueIntegrations(db, later)).map((d) => d.integrationId)).toContain(integration.id);
  });
});

describe('the worker (functions/run-pull-integrations.ts)', () => {
  it('runs a batch of claimed slots, each once, and reports no failure for what it handled', async () => {
    source.answers['/batch'] = { json: { value: 5 } };
    const dueAt = '2000-06-01T00:00:00.000Z';
    await Promise.all(Array.from({ length: 3 }, () => putDue(dueAt, '/batch')));
    const queue = queueNamed();
    await schedulePass({ db, queue, now: Date.parse('2000-06-01T00:01:00.000Z') });
    const messages = await queue.receive();
    expect(messages).toHaveLength(3);
    const result = await workerHandler(
      {
        Records: [
          ...messages.map((m, i) => ({
            messageId: `m${i}`,
            receiptHandle: m.receipt,
            body: m.body,
            attributes: {},
          })),
          { messageId: 'junk', receiptHandle: 'r', body: 'not json', attributes: {} },
        ],
      } as never,
      { functionName: 'runPullIntegrations' } as never,
    );
    expect(result.batchItemFailures).toEqual([]);
    expect(source.requestsTo('/batch')).toHaveLength(3);
    for (const message of messages) await queue.delete(message.receipt);
  });

  it('one tenant’s expression bomb changes nothing of another tenant’s run in the same batch', async () => {
    // Stored as an earlier version accepted it: the save-time check would refuse it now.
    const bomb = `${'[@,@]|'.repeat(19)}length(to_string(@))`;
    const other = await createTestTenant({
      features: ['kpi_push_measurement', 'kpi_api_integration'],
      kpiTypes: ['BSC_KPI'],
      period: 'day',
    });
    source.answers['/bomb'] = { json: { items: Array.from({ length: 20 }, (_, i) => ({ id: i, v: i })) } };
    // The other tenant's source answers while the bomb's run evaluates.
    source.answers['/slow'] = { json: { value: 42 }, delayMs: 300 };
    const dueAt = '2000-05-01T00:00:00.000Z';
    const bombing = await storePullIntegration(
      pullIntegrationRecord(tenant.kpis[0]!, dueAt, {
        url: source.url('/bomb'),
        bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: bomb }],
      }),
    );
    const innocent = await storePullIntegration(
      pullIntegrationRecord(other.kpis[0]!, dueAt, { url: source.url('/slow') }),
    );
    const queue = queueNamed();
    await schedulePass({ db, queue, now: Date.parse('2000-05-01T00:01:00.000Z') });
    const messages = (await queue.receive()).filter(
      (m) => m.body.includes(bombing.id) || m.body.includes(innocent.id),
    );
    expect(messages).toHaveLength(2);
    const result = await workerHandler(
      {
        Records: messages.map((m, i) => ({
          messageId: `m${i}`,
          receiptHandle: m.receipt,
          body: m.body,
          attributes: {},
        })),
      } as never,
      { functionName: 'runPullIntegrations' } as never,
    );
    expect(result.batchItemFailures).toEqual([]);
    const [bombRun] = (await runPage(db, bombing.id, { limit: 1 })).items;
    expect(bombRun).toMatchObject({
      outcome: 'failed',
      errorClass: null,
      bindings: [
        {
          result: 'failed',
          actual: null,
          problem: expect.stringMatching(/^actual: the expression was stopped: it can copy its input/),
        },
      ],
    });
    const [innocentRun] = (await runPage(db, innocent.id, { limit: 1 })).items;
    expect(innocentRun).toMatchObject({
      outcome: 'stored',
      errorClass: null,
      bindings: [{ result: 'created', actual: 42 }],
    });
    expect((await listMeasurements(db, other.kpis[0]!.id, { limit: 10 })).items.map((m) => m.actual)).toEqual(
      [42],
    );
    for (const message of messages) await queue.delete(message.receipt);
  });

  it('the scheduler function reports its pass', async () => {
    const result = await schedulerHandler({}, { functionName: 'schedulePullIntegrations' } as never);
    expect(result).toMatchObject({ failed: 0 });
    for (const message of await queueNamed().receive()) await queueNamed().delete(message.receipt);
  });

  it('a new integration is due at once: the next pass hands it over', async () => {
    source.answers['/new'] = { json: { value: 9 } };
    const created = await createIntegration(pullDeps, {
      name: 'New',
      url: source.url('/new'),
      auth: { type: 'none' },
      schedule: { every: '15m' },
      period: 'day',
      bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'value' }],
      tenantId: tenant.tenant.id,
      createdBy: null,
    });
    const due = await dueIntegrations(db, Date.now());
    expect(due.map((d) => d.integrationId)).toContain(created.id);
  });
});

describe('a tenant whose plan lost kpi_api_integration', () => {
  it('is not fetched: its claimed slot moves on to the next one, nothing is recorded', async () => {
    source.answers['/lost'] = { json: { value: 1 } };
    const dueAt = '1999-06-01T00:00:00.000Z';
    const integration = await putDue(dueAt, '/lost');
    await updateTenant(db, tenant.tenant.id, { features: ['kpi_push_measurement'] });
    try {
      const queue = queueNamed();
      const now = Date.parse('1999-06-01T00:01:00.000Z');
      await schedulePass({ db, queue, now });
      const [message] = (await queue.receive()).filter((m) => m.body.includes(integration.id));
      // A fresh cache: the tenant as it is now.
      const deps = {
        ...pullRunDeps,
        now: () => now,
        tenants: createTenantCache({ ttlSeconds: 0, load: (id) => getTenant(db, id) }),
      };
      expect(await runMessage(deps, message!.body)).toEqual({ kind: 'skipped', reason: 'feature-off' });
      await queue.delete(message!.receipt);
      expect(source.requestsTo('/lost')).toHaveLength(0);
      const stored = await getIntegration(db, tenant.tenant.id, integration.id);
      expect(stored).toMatchObject({
        lastRun: null,
        nextRunAt: '1999-06-02T00:00:00.000Z',
        claimedSlot: null,
      });
    } finally {
      await updateTenant(db, tenant.tenant.id, { features: ['kpi_push_measurement', 'kpi_api_integration'] });
    }
  });
});

describe('the per-tenant cap of a worker', () => {
  it('runs at most 2 tasks of one tenant at once; other tenants are not held up', async () => {
    const limiter = createTenantLimiter(2);
    const peak = new Map<string, number>();
    const release: (() => void)[] = [];
    const task = (tenantId: string) =>
      limiter.run(tenantId, async () => {
        peak.set(tenantId, Math.max(peak.get(tenantId) ?? 0, limiter.runningOf(tenantId)));
        await new Promise<void>((resolve) => release.push(resolve));
        return tenantId;
      });
    const a = [task('a'), task('a'), task('a'), task('a')];
    const b = task('b');
    await new Promise((resolve) => setTimeout(resolve, 10));
    // Two of a and the one of b started; the other two of a wait.
    expect(release).toHaveLength(3);
    expect(limiter.runningOf('a')).toBe(2);
    while (release.length > 0) {
      release.shift()!();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await Promise.all([...a, b])).toEqual(['a', 'a', 'a', 'a', 'b']);
    expect(peak.get('a')).toBe(2);
    expect(limiter.runningOf('a')).toBe(0);
  });

  it('counts a tenant’s running tasks down one at a time when none waits', async () => {
    const limiter = createTenantLimiter(3);
    const release: (() => void)[] = [];
    const tasks = [0, 1, 2].map(() =>
      limiter.run('c', () => new Promise<void>((resolve) => release.push(resolve))),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(limiter.runningOf('c')).toBe(3);
    release.shift()!();
    await tasks[0];
    expect(limiter.runningOf('c')).toBe(2);
    release.shift()!();
    await tasks[1];
    expect(limiter.runningOf('c')).toBe(1);
    release.shift()!();
    await tasks[2];
    expect(limiter.runningOf('c')).toBe(0);
  });
});

describe('a pass shares its claims among tenants', () => {
  it('hands over another tenant’s slot second among 60 of one tenant, claims 50 of that one and leaves 10 for the next pass', async () => {
    const other = await createTestTenant({
      features: ['kpi_push_measurement', 'kpi_api_integration'],
      kpiTypes: ['BSC_KPI'],
    });
    const dueAt = '1990-06-01T00:00:00.000Z';
    const busy = await Promise.all(Array.from({ length: 60 }, () => putDue(dueAt)));
    // Due as early as the others, and after all of them in the index's order.
    const lone = await storePullIntegration(
      pullIntegrationRecord(other.kpis[0]!, '1990-06-01T00:00:00.001Z', { url: source.url('/ok') }),
    );
    const sent: string[] = [];
    const queue = {
      send: async (body: string) => void sent.push(JSON.parse(body).integrationId),
      retryLater: async () => {},
    };
    const now = Date.parse('1990-06-01T00:01:00.000Z');
    const first = await schedulePass({ db, queue, now });
    expect(first).toMatchObject({ due: 61, claimed: 51, skipped: 0, failed: 0, deferred: 10 });
    // Claims run 25 at once: the other tenant's is in the first 25 handed over.
    expect(sent.slice(0, 25)).toContain(lone.id);
    const firstPass = sent.splice(0);
    expect(firstPass.filter((id) => id !== lone.id)).toHaveLength(50);
    const second = await schedulePass({ db, queue, now: now + 60_000 });
    expect(second).toMatchObject({ due: 10, claimed: 10, deferred: 0 });
    expect(new Set([...firstPass, ...sent])).toEqual(new Set([...busy.map((b) => b.id), lone.id]));
  });
});
