import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../../lib/db/keys';
import { createKpi } from '../../../../lib/db/kpis';
import {
  countRun,
  getIntegration,
  PULL_RETENTION_DAYS,
  runPage,
  type StoredIntegration,
  usageDaysOf,
} from '../../../../lib/db/pull-integrations';
import { updateKpi } from '../../../../lib/kpis/settings';
import { createIntegration } from '../../../../lib/pull/definitions';
import { createTokenCache } from '../../../../lib/pull/fetch';
import { executeRun, runMessage, runNow } from '../../../../lib/pull/run';
import {
  assertMayPull,
  integrationWithUsage,
  readIntegration,
  removeIntegration,
} from '../../../../lib/pull/service';
import { archivedKpiMessage } from '../../../../lib/push/store';
import { pullDeps, pullRunDeps } from '../../../../lib/runtime';
import type { Publish } from '../../../../lib/webhooks/events';
import {
  createTestTenant,
  db,
  pullIntegrationRecord,
  storePullIntegration,
  type TestTenant,
} from '../../../support/fixtures';
import { overtaken } from '../../../support/instrumented-db';
import { captureOutput } from '../../../support/output';
import { type PullSource, startPullSource } from '../../../support/pull-source';
import { storedMeasurements } from '../../../support/push';

/**
 * A run (lib/pull/run.ts) and the service around it (lib/pull/service.ts) against DynamoDB Local and a
 * source on this machine: what a run records and announces, how it decides its state again when the
 * integration changes under it, and what the worker skips.
 */

let tenant: TestTenant;
let source: PullSource;
beforeAll(async () => {
  tenant = await createTestTenant({
    features: ['kpi_push_measurement', 'kpi_api_integration'],
    kpiTypes: ['BSC_KPI'],
    // The integrations of these tests stand for the day they run in.
    period: 'day',
  });
  source = await startPullSource();
  source.answers['/ok'] = { json: { value: 3 } };
  source.answers['/down'] = { status: 503, json: {} };
});
afterAll(() => source.close());

/** An integration as the service stores it, on a path of the source. */
const stored = (path: string, changes: Partial<StoredIntegration> = {}) =>
  storePullIntegration(
    pullIntegrationRecord(tenant.kpis[0]!, '2026-01-01T00:00:00.000Z', { url: source.url(path), ...changes }),
  );

/** Publishes into a list: what a run announced to the tenant's webhooks. */
const recording = () => {
  const published: Parameters<Publish>[0][] = [];
  const publish: Publish = async (event) => {
    published.push(event);
  };
  return { published, publish };
};

/** Failing for more than a day, with two failures in a row: the next failed run disables it. */
const onTheEdge = {
  status: 'failing' as const,
  consecutiveFailures: 2,
  failingSince: '2026-01-01T00:00:00.000Z',
};
const DAYS_LATER = Date.parse('2026-01-05T00:00:00.000Z');

const auditsOf = (lines: any[], type: string) => lines.filter((line) => line.audit === type);

describe('what a run records', () => {
  it('takes as long as the clock says, and its record leaves the log after the retention', async () => {
    const integration = await stored('/ok');
    const times: number[] = [];
    let clock = DAYS_LATER;
    const now = () => {
      clock += 100;
      times.push(clock);
      return clock;
    };
    const run = await runNow({ ...pullRunDeps, now }, tenant.tenant.id, integration.id);
    const [startedAt, finishedAt] = [times[0]!, times.at(-1)!];
    expect(run.startedAt).toBe(new Date(startedAt).toISOString());
    expect(run.durationMs).toBe(finishedAt - startedAt);
    expect(run.durationMs).toBeGreaterThan(0);
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.pullRun(integration.id, run.id) }),
    );
    expect(Item?.ttl).toBe(Math.floor(finishedAt / 1000) + PULL_RETENTION_DAYS * 86_400);
  });

  it('counts a failed run as failed on its day, and a stored one not', async () => {
    const failing = await stored('/down');
    const storing = await stored('/ok');
    const now = () => DAYS_LATER;
    await runNow({ ...pullRunDeps, now }, tenant.tenant.id, failing.id);
    await runNow({ ...pullRunDeps, now }, tenant.tenant.id, storing.id);
    const [failed] = await usageDaysOf(db, failing.id, '2026-01-05', '2026-01-05');
    const [ok] = await usageDaysOf(db, storing.id, '2026-01-05', '2026-01-05');
    expect(failed).toMatchObject({ runs: 1, failed: 1, measurements: 0 });
    expect(ok).toMatchObject({ runs: 1, failed: 0, measurements: 1 });
  });

  it('reports no binding when the fetch failed: nothing was read to bind', async () => {
    const integration = await stored('/down');
    const run = await runNow(pullRunDeps, tenant.tenant.id, integration.id);
    expect(run).toMatchObject({ outcome: 'failed', errorClass: 'http_status', bindings: [] });
  });

  it('logs the run with what it did, and audits it in the name of the service when nobody is named', async () => {
    const integration = await stored('/ok');
    const { result: run, lines } = await captureOutput(() =>
      runNow(pullRunDeps, tenant.tenant.id, integration.id),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'pull integration run',
        tenantId: tenant.tenant.id,
        integrationId: integration.id,
        trigger: 'manual',
        outcome: 'stored',
        httpStatus: 200,
        stored: 1,
      }),
    );
    expect(auditsOf(lines, 'integration.run')).toEqual([
      expect.objectContaining({
        actorType: 'system',
        actorId: 'service',
        integrationId: integration.id,
        name: integration.name,
        runId: run.id,
        outcome: 'stored',
        measurementsStored: 1,
      }),
    ]);
  });
});

describe('the period of a run', () => {
  it('stores a value only as one whole period of its KPI: a quarter read into a daily KPI fails its binding', async () => {
    source.answers['/quarter'] = { json: { value: 5, from: '2026-01-01', to: '2026-03-31' } };
    source.answers['/today'] = { json: { value: 6, from: '2026-01-05', to: '2026-01-05' } };
    const quarter = await stored('/quarter', { period: { start: 'from', end: 'to' } });
    const day = await stored('/today', { period: { start: 'from', end: 'to' } });
    const now = () => DAYS_LATER;
    const refused = await runNow({ ...pullRunDeps, now }, tenant.tenant.id, quarter.id);
    expect(refused).toMatchObject({
      outcome: 'failed',
      measurementsStored: 0,
      bindings: [
        {
          result: 'failed',
          periodStart: '2026-01-01',
          periodEnd: '2026-03-31',
          problem: expect.stringMatching(
            /^periodEnd: .*period is day.*periodStart 2026-01-01 and periodEnd 2026-01-01/,
          ),
        },
      ],
    });
    const stored_ = await runNow({ ...pullRunDeps, now }, tenant.tenant.id, day.id);
    expect(stored_).toMatchObject({
      outcome: 'stored',
      bindings: [{ result: expect.stringMatching(/created|updated/) }],
    });
  });
});

describe('a binding to an archived KPI', () => {
  it('writes nothing to it, stores the others (partial), and the run and its record name the KPI; restored, it is written', async () => {
    const archived = await createKpi(db, tenant.tenant.id, {
      type: 'BSC_KPI',
      name: 'Archived churn',
      period: 'day',
    });
    const live = tenant.kpis[0]!;
    const integration = await stored('/ok', {
      bindings: [
        { kpiId: live.id, kpiType: 'BSC_KPI', actual: 'value' },
        { kpiId: archived.id, kpiType: 'BSC_KPI', actual: 'value' },
      ],
    });
    const gone = (await updateKpi(db, tenant.tenant.id, archived.id, { archived: true }))!;
    expect(gone.archivedAt).toEqual(expect.any(String));

    const run = await runNow(pullRunDeps, tenant.tenant.id, integration.id);
    const problem = archivedKpiMessage(gone);
    expect(problem).toContain(`KPI ${archived.id} (Archived churn) is archived`);
    expect(run).toMatchObject({
      outcome: 'partial',
      measurementsStored: 1,
      bindings: [
        { kpiId: live.id, result: expect.stringMatching(/created|updated/), problem: null },
        { kpiId: archived.id, result: 'failed', actual: 3, problem },
      ],
    });
    const [recorded] = (await runPage(db, integration.id, { limit: 10 })).items;
    expect(recorded).toMatchObject({
      id: run.id,
      outcome: 'partial',
      bindings: [{}, { result: 'failed', problem }],
    });
    expect(await storedMeasurements(tenant, archived.id)).toEqual([]);

    await updateKpi(db, tenant.tenant.id, archived.id, { archived: false });
    const again = await runNow(pullRunDeps, tenant.tenant.id, integration.id);
    expect(again).toMatchObject({ outcome: 'stored', bindings: [{}, { result: 'created', problem: null }] });
    expect(await storedMeasurements(tenant, archived.id)).toMatchObject([{ actual: 3 }]);
  });
});

describe('disabling', () => {
  it('is announced once: a run that stores or only fails announces nothing, nor does a failed run of a disabled one', async () => {
    const { published, publish } = recording();
    const deps = { ...pullRunDeps, publish, now: () => DAYS_LATER };
    const fine = await stored('/ok', onTheEdge);
    const first = await stored('/down');
    const edge = await stored('/down', onTheEdge);
    const { lines } = await captureOutput(async () => {
      await runNow(deps, tenant.tenant.id, fine.id);
      await runNow(deps, tenant.tenant.id, first.id);
      await runNow(deps, tenant.tenant.id, edge.id);
      await runNow(deps, tenant.tenant.id, edge.id);
    });
    expect(published).toEqual([
      expect.objectContaining({
        type: 'integration.disabled',
        tenantId: tenant.tenant.id,
        occurredAt: new Date(DAYS_LATER).toISOString(),
        data: expect.objectContaining({ integrationId: edge.id, failures: 3 }),
      }),
    ]);
    expect(auditsOf(lines, 'integration.disabled')).toEqual([
      expect.objectContaining({ integrationId: edge.id, failures: 3, lastErrorClass: 'http_status' }),
    ]);
    expect(await getIntegration(db, tenant.tenant.id, edge.id)).toMatchObject({
      status: 'disabled',
      consecutiveFailures: 4,
    });
    expect(await getIntegration(db, tenant.tenant.id, first.id)).toMatchObject({
      status: 'active',
      consecutiveFailures: 1,
    });
  });

  it('stands when the announcement cannot be published: the status and the audit log say so', async () => {
    const edge = await stored('/down', onTheEdge);
    const publish: Publish = async () => {
      throw new Error('queue down');
    };
    const { result: run, lines } = await captureOutput(() =>
      runNow({ ...pullRunDeps, publish, now: () => DAYS_LATER }, tenant.tenant.id, edge.id),
    );
    expect(run.outcome).toBe('failed');
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'WARN', message: 'integration.disabled was not published' }),
    );
    expect(await getIntegration(db, tenant.tenant.id, edge.id)).toMatchObject({ status: 'disabled' });
  });
});

/** Sets fields of a stored integration, as another request does. */
const change = (integration: StoredIntegration, fields: Record<string, unknown>) => {
  const names = Object.keys(fields);
  return db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: keys.pullIntegration(integration.tenantId, integration.id),
      UpdateExpression: `SET ${names.map((n) => `#${n} = :${n}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((n) => [`#${n}`, n])),
      ExpressionAttributeValues: Object.fromEntries(names.map((n) => [`:${n}`, fields[n]])),
    }),
  );
};

/**
 * A client whose first `times` transactions find the integration changed just before: the test
 * writes the integration's status (and whatever else `fields` says) between the run's read and its
 * write.
 */
const changedBeforeTransactions = (
  integration: StoredIntegration,
  times: number,
  fields: (nth: number) => Record<string, unknown>,
) => overtaken(db, 'TransactWriteItemsCommand', (nth) => change(integration, fields(nth)), times).db;

describe('a disabling run whose integration changed meanwhile', () => {
  it('run by hand, decides again from the integration as it is now: a reset one is not disabled', async () => {
    const edge = await stored('/down', onTheEdge);
    const { published, publish } = recording();
    const racing = changedBeforeTransactions(edge, 1, () => ({ status: 'active', consecutiveFailures: 0 }));
    const { lines } = await captureOutput(() =>
      runNow({ ...pullRunDeps, db: racing, publish, now: () => DAYS_LATER }, tenant.tenant.id, edge.id),
    );
    expect(published).toEqual([]);
    expect(auditsOf(lines, 'integration.disabled')).toEqual([]);
    expect(await getIntegration(db, tenant.tenant.id, edge.id)).toMatchObject({
      status: 'active',
      consecutiveFailures: 1,
    });
  });

  it('scheduled, records nothing: its claim ended with the change', async () => {
    const edge = await stored('/down', { ...onTheEdge, claimedSlot: 'slot-1' });
    const racing = changedBeforeTransactions(edge, 1, () => ({ status: 'active' }));
    const run = await executeRun(
      { ...pullRunDeps, db: racing, now: () => DAYS_LATER },
      edge,
      'schedule',
      'slot-1',
    );
    expect(run).toBeUndefined();
    expect((await runPage(db, edge.id, { limit: 10 })).items).toEqual([]);
    expect(await getIntegration(db, tenant.tenant.id, edge.id)).toMatchObject({
      status: 'active',
      consecutiveFailures: 2,
      claimedSlot: 'slot-1',
    });
  });

  it('run by hand, gives up after 3 decisions that each found it changed again', async () => {
    const edge = await stored('/down', onTheEdge);
    const flip = (nth: number) => ({ status: nth % 2 === 0 ? 'active' : 'failing' });
    await expect(
      runNow(
        { ...pullRunDeps, db: changedBeforeTransactions(edge, 3, flip), now: () => DAYS_LATER },
        tenant.tenant.id,
        edge.id,
      ),
    ).rejects.toThrow(`Pull integration ${edge.id} kept changing; the run's state was not recorded.`);
    // A third change only: the fourth decision would have found it as it is.
    const other = await stored('/down', onTheEdge);
    await expect(
      runNow(
        { ...pullRunDeps, db: changedBeforeTransactions(other, 2, flip), now: () => DAYS_LATER },
        tenant.tenant.id,
        other.id,
      ),
    ).resolves.toMatchObject({ outcome: 'failed' });
    expect(await getIntegration(db, tenant.tenant.id, other.id)).toMatchObject({ status: 'disabled' });
  });
});

describe('a scheduled run whose claim is gone', () => {
  it('answers nothing and records nothing', async () => {
    const integration = await stored('/ok', { claimedSlot: 'slot-a' });
    expect(await executeRun(pullRunDeps, integration, 'schedule', 'slot-b')).toBeUndefined();
    expect((await runPage(db, integration.id, { limit: 10 })).items).toEqual([]);
    expect(await getIntegration(db, tenant.tenant.id, integration.id)).toMatchObject({
      lastRun: null,
      claimedSlot: 'slot-a',
    });
  });
});

describe('the worker', () => {
  const message = (integration: StoredIntegration, slot: string) =>
    JSON.stringify({ tenantId: integration.tenantId, integrationId: integration.id, slot });

  it('drops a message that names no integration, saying so', async () => {
    const { result, lines } = await captureOutput(() => runMessage(pullRunDeps, 'not json'));
    expect(result).toEqual({ kind: 'skipped', reason: 'malformed' });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        message: 'A pull queue message that names no integration was dropped.',
      }),
    );
  });

  it('skips an integration that is disabled or gone', async () => {
    const disabled = await stored('/ok', { status: 'disabled', claimedSlot: 's1' });
    expect(await runMessage(pullRunDeps, message(disabled, 's1'))).toEqual({
      kind: 'skipped',
      reason: 'gone',
    });
    const gone = pullIntegrationRecord(tenant.kpis[0]!, '2026-01-01T00:00:00.000Z');
    expect(await runMessage(pullRunDeps, message(gone, 's1'))).toEqual({ kind: 'skipped', reason: 'gone' });
    expect((await runPage(db, disabled.id, { limit: 10 })).items).toEqual([]);
  });

  it('runs a claimed slot as a scheduled run', async () => {
    const integration = await stored('/ok', { claimedSlot: 's2' });
    const outcome = await runMessage(pullRunDeps, message(integration, 's2'));
    expect(outcome).toMatchObject({ kind: 'ran', run: { trigger: 'schedule', outcome: 'stored' } });
  });
});

describe('the service around runs', () => {
  it('refuses a tenant it does not know as one without the feature, naming the feature', async () => {
    await expect(assertMayPull(pullRunDeps, 'no-such-tenant')).rejects.toMatchObject({
      code: 'FEATURE_NOT_ENABLED',
      message:
        'The plan of this organization does not include kpi_api_integration. Upgrade the plan to pull KPI values from other systems.',
    });
  });

  it('names the integration it does not find', async () => {
    await expect(readIntegration(pullRunDeps, tenant.tenant.id, 'missing-id')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Pull integration missing-id not found.',
    });
  });

  it('answers the usage of the last 30 days, today included', async () => {
    const integration = await stored('/ok');
    const now = Date.parse('2026-03-31T12:00:00.000Z');
    for (const day of ['2026-03-01', '2026-03-02', '2026-03-31', '2026-04-01']) {
      await countRun(db, integration.id, day, { measurements: 1, errorClass: null, failed: false });
    }
    const { usage } = await integrationWithUsage(
      { ...pullRunDeps, now: () => now },
      tenant.tenant.id,
      integration.id,
    );
    expect(usage.map((d) => d.date)).toEqual(['2026-03-02', '2026-03-31']);
  });

  it('audits a deletion in the name of the service when nobody is named, with where it pointed', async () => {
    const integration = await stored('/ok');
    const { lines } = await captureOutput(() =>
      removeIntegration(pullRunDeps, tenant.tenant.id, integration.id),
    );
    expect(auditsOf(lines, 'integration.deleted')).toEqual([
      expect.objectContaining({
        actorType: 'system',
        actorId: 'service',
        name: integration.name,
        urlOrigin: source.base,
        auth: 'none',
      }),
    ]);
  });
});

describe('an integration deleted while it runs', () => {
  const deletedBefore = (integration: StoredIntegration, command: string) =>
    overtaken(db, command, () =>
      db.client.send(
        new DeleteCommand({
          TableName: db.tableName,
          Key: keys.pullIntegration(integration.tenantId, integration.id),
        }),
      ),
    ).db;

  it('run by hand, is NOT_FOUND and records no run, whether the run would disable it or not', async () => {
    const plain = await stored('/ok');
    const edge = await stored('/down', onTheEdge);
    for (const [integration, command] of [
      [plain, 'UpdateItemCommand'],
      [edge, 'TransactWriteItemsCommand'],
    ] as const) {
      const deps = { ...pullRunDeps, db: deletedBefore(integration, command), now: () => DAYS_LATER };
      await expect(runNow(deps, tenant.tenant.id, integration.id)).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: `Pull integration ${integration.id} not found.`,
      });
      expect((await runPage(db, integration.id, { limit: 10 })).items).toEqual([]);
    }
  });
});

describe('a scheduled run whose claim changes while it runs', () => {
  it('is skipped as not claimed, and records no run', async () => {
    const integration = await stored('/ok', { claimedSlot: 's3' });
    const reclaimed = overtaken(db, 'UpdateItemCommand', () => change(integration, { claimedSlot: 's4' })).db;
    const message = JSON.stringify({
      tenantId: integration.tenantId,
      integrationId: integration.id,
      slot: 's3',
    });
    expect(await runMessage({ ...pullRunDeps, db: reclaimed }, message)).toEqual({
      kind: 'skipped',
      reason: 'not-claimed',
    });
    expect((await runPage(db, integration.id, { limit: 10 })).items).toEqual([]);
  });
});

describe('an OAuth2 token of a run', () => {
  it('lives by the run’s clock: a run two hours later asks for a new one', async () => {
    source.answers['/run-token'] = { json: { access_token: 'run-token', expires_in: 3600 } };
    source.answers['/run-value'] = { json: { value: 4 } };
    const created = await createIntegration(pullDeps, {
      name: 'OAuth source',
      url: source.url('/run-value'),
      period: 'day',
      auth: {
        type: 'oauth2_client_credentials',
        tokenUrl: source.url('/run-token'),
        clientId: 'client',
        clientSecret: 'secret',
      },
      schedule: { every: 'day' },
      bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'value' }],
      tenantId: tenant.tenant.id,
      createdBy: null,
    });
    let clock = Date.parse('2030-01-01T00:00:00.000Z');
    const deps = { ...pullRunDeps, tokens: createTokenCache(), now: () => clock };
    await runNow(deps, tenant.tenant.id, created.id);
    clock += 2 * 3_600_000;
    await runNow(deps, tenant.tenant.id, created.id);
    expect(source.requestsTo('/run-token')).toHaveLength(2);
  });
});
