import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { batchPut } from '../lib/db/batch';
import type { Database } from '../lib/db/client';
import { createKpi } from '../lib/db/kpis';
import { getIntegration, pullIntegrations, type StoredIntegration } from '../lib/db/pull-integrations';
import { createTenant, getTenant } from '../lib/db/tenants';
import { createEgress } from '../lib/egress';
import { createTokenCache } from '../lib/pull/fetch';
import { executeRun, runMessage } from '../lib/pull/run';
import { schedulePass } from '../lib/pull/scheduler';
import { createPullSecretSeal } from '../lib/pull/secrets';
import type { PullRunDeps } from '../lib/pull/service';
import { createTenantCache } from '../lib/tenant-cache';
import { median } from './bundles';
import { type Call, capacityOf, recordCalls } from './capacity';
import { pullIntegrationRecord } from './records';

/**
 * What pull integrations cost in DynamoDB (docs/operations.md, "Pull integrations"): one scheduler pass
 * over 1,000 integrations of which 10 are due, and one scheduled run of an integration with one binding
 * against a source on this machine (its requests and units; with timing, its median time in-process,
 * which is most of the worker's Lambda time per run besides the source's own answer time).
 */
export interface PullResults {
  scheduler: {
    integrations: number;
    due: number;
    requests: number;
    queries: number;
    readUnits: number;
    writeUnits: number;
  };
  run: { requests: number; readUnits: number; writeUnits: number; medianMs: number | null; runs: number };
}

const INTEGRATIONS = 1000;
const DUE = 10;

export const measurePull = async (db: Database, timing: boolean): Promise<PullResults> => {
  const server = createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end('{"data":{"mrr":248500,"goal":260000}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mrr`;
  try {
    const tenant = await createTenant(db, {
      name: 'Pull bench',
      plan: 'enterprise',
      features: ['kpi_push_measurement', 'kpi_api_integration'],
      active: true,
    });
    const kpi = await createKpi(db, tenant.id, { type: 'BSC_KPI', name: 'MRR' });
    // 1,000 integrations as the service stores them: 10 due now, the others later today.
    const now = Date.now();
    const integration = (dueAt: number) =>
      pullIntegrationRecord({ id: kpi.id, tenantId: tenant.id }, new Date(dueAt).toISOString(), {
        url,
        schedule: { every: 'hour' },
        period: 'month',
        bindings: [{ kpiId: kpi.id, kpiType: 'BSC_KPI', actual: 'data.mrr', target: 'data.goal' }],
      });
    const items = Array.from({ length: INTEGRATIONS }, (_, i) =>
      integration(i < DUE ? now - 60_000 : now + 3_600_000 + i * 1000),
    );
    // Written through the entity's codec, as the service writes them.
    await batchPut(
      db,
      items.map((item) => pullIntegrations.toItem(item)),
    );

    const sent: string[] = [];
    const queue = { send: async (body: string) => void sent.push(body), retryLater: async () => {} };
    const calls: Call[] = [];
    const stop = recordCalls(db.client, calls);
    const pass = await schedulePass({ db, queue, now });
    stop();
    const schedulerUnits = capacityOf(calls);
    const scheduler = {
      integrations: INTEGRATIONS,
      due: pass.due,
      requests: calls.length,
      queries: calls.filter((c) => c.command === 'QueryCommand').length,
      readUnits: schedulerUnits.read,
      writeUnits: schedulerUnits.write,
    };

    // A scheduled run of one claimed slot, as the worker makes it (tenant cache cold, as a new container).
    const deps = (): PullRunDeps => ({
      db,
      secrets: createPullSecretSeal('bench-secrets-key-of-at-least-32-characters'),
      egress: createEgress({ allowLoopback: true }),
      tokens: createTokenCache(),
      tenants: createTenantCache({ ttlSeconds: 0, load: (id) => getTenant(db, id) }),
      local: true,
      publish: async () => {},
    });
    const [body] = sent as [string];
    const message = JSON.parse(body) as { integrationId: string };
    calls.splice(0);
    const stopRun = recordCalls(db.client, calls);
    const outcome = await runMessage(deps(), body);
    stopRun();
    if (outcome.kind !== 'ran' || outcome.run.outcome !== 'stored') {
      throw new Error(`the bench run did not store: ${JSON.stringify(outcome)}`);
    }
    const runUnits = capacityOf(calls);
    const durations: number[] = [];
    if (timing) {
      const runDeps = deps();
      for (let i = 0; i < 30; i++) {
        const current = (await getIntegration(db, tenant.id, message.integrationId)) as StoredIntegration;
        const started = performance.now();
        await executeRun(runDeps, current, 'manual', null);
        durations.push(performance.now() - started);
      }
    }
    return {
      scheduler,
      run: {
        requests: calls.length,
        readUnits: runUnits.read,
        writeUnits: runUnits.write,
        medianMs: durations.length > 0 ? Math.round(median(durations.slice(5)) * 10) / 10 : null,
        runs: durations.length,
      },
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
};
