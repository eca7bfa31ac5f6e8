import { batchPut } from '../lib/db/batch';
import type { Database } from '../lib/db/client';
import { createKpi } from '../lib/db/kpis';
import { dueIntegrations, pullIntegrations } from '../lib/db/pull-integrations';
import { createTenant } from '../lib/db/tenants';
import { CLAIMS_PER_TENANT_PER_PASS, schedulePass } from '../lib/pull/scheduler';
import { pullIntegrationRecord } from './records';

/**
 * Fair scheduling (docs/operations.md, "Pull integrations"): two tenants, one with 1,000 slots due
 * and one with a single slot due a moment later, in one scheduler pass against DynamoDB Local. It
 * measures when the quiet tenant's slot is handed to the worker (its place among the pass's messages
 * and the milliseconds after the pass began), where the due index alone would have put it, and how
 * many passes the busy tenant's slots take.
 */
export interface FairnessResults {
  busyDue: number;
  perTenantPerPass: number;
  /** The quiet tenant's place among the messages of the first pass (1 is the first). */
  quietPlace: number;
  /** Its place in the due index's order, which the scheduler followed before it took turns. */
  quietPlaceInIndexOrder: number;
  /** Milliseconds from the start of the pass until the quiet tenant's message was sent. */
  quietSentAfterMs: number;
  /** Milliseconds of the whole first pass (1,001 due read, 51 claimed). */
  firstPassMs: number;
  /** Passes (one a minute) until every busy slot was handed over. */
  passesForBusy: number;
}

const BUSY = 1000;

const tenantWithKpi = async (db: Database, name: string) => {
  const tenant = await createTenant(db, {
    name,
    plan: 'enterprise',
    features: ['kpi_push_measurement', 'kpi_api_integration'],
    active: true,
  });
  const kpi = await createKpi(db, tenant.id, { type: 'BSC_KPI', name: 'Value' });
  return { id: kpi.id, tenantId: tenant.id };
};

export const measurePullFairness = async (db: Database): Promise<FairnessResults> => {
  const busy = await tenantWithKpi(db, 'Busy tenant');
  const quiet = await tenantWithKpi(db, 'Quiet tenant');
  const now = Date.now();
  const dueAt = new Date(now - 60_000).toISOString();
  const items = [
    ...Array.from({ length: BUSY }, () => pullIntegrationRecord(busy, dueAt, { schedule: { every: '15m' } })),
    // Due a millisecond after the busy tenant's: last in the index's order.
    pullIntegrationRecord(quiet, new Date(now - 59_999).toISOString(), { schedule: { every: '15m' } }),
  ];
  await batchPut(
    db,
    items.map((item) => pullIntegrations.toItem(item)),
  );
  const quietId = items.at(-1)?.id as string;
  const quietPlaceInIndexOrder =
    (await dueIntegrations(db, now)).findIndex((d) => d.integrationId === quietId) + 1;

  let sent: { id: string; at: number }[] = [];
  const queue = {
    send: async (body: string) =>
      void sent.push({ id: JSON.parse(body).integrationId, at: performance.now() }),
    retryLater: async () => {},
  };
  const started = performance.now();
  await schedulePass({ db, queue, now });
  const firstPassMs = performance.now() - started;
  const quiet0 = sent.findIndex((s) => s.id === quietId);
  const quietSentAfterMs = (sent[quiet0]?.at ?? Number.NaN) - started;
  let handed = sent.length - 1;
  let passes = 1;
  while (handed < BUSY) {
    sent = [];
    await schedulePass({ db, queue, now: now + passes * 60_000 });
    handed += sent.length;
    passes++;
  }
  return {
    busyDue: BUSY,
    perTenantPerPass: CLAIMS_PER_TENANT_PER_PASS,
    quietPlace: quiet0 + 1,
    quietPlaceInIndexOrder,
    quietSentAfterMs: Math.round(quietSentAfterMs * 10) / 10,
    firstPassMs: Math.round(firstPassMs),
    passesForBusy: passes,
  };
};
