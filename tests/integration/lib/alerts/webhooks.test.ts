import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAlertCheck } from '../../../../lib/alerts/check';
import { revokeLeakedKeys } from '../../../../lib/api-keys/leaks';
import { createApiKey } from '../../../../lib/api-keys/service';
import type { WebhookEventType } from '../../../../lib/domain/webhook';
import { updateKpi } from '../../../../lib/kpis/settings';
import { egress, webhookSecrets } from '../../../../lib/runtime';
import { drainLocalQueue } from '../../../../lib/webhooks/drain';
import { webhookLocalQueue } from '../../../../lib/webhooks/local-queue';
import { createPublisher } from '../../../../lib/webhooks/publisher';
import { createEndpoint } from '../../../../lib/webhooks/service';
import { createTestTenant, db, putMeasurement } from '../../../support/fixtures';
import { type Receiver, startReceiver } from '../../../support/webhook-receiver';

/**
 * The alerts as a tenant receives them: the scheduled check (lib/alerts/check.ts) and the key use
 * cases publish through the real publisher into the local queue, the worker's code delivers from it,
 * signed, and a receiver verifies each delivery with the `standardwebhooks` package. One clock drives
 * the check, the queue and the deliveries, so 25 hours pass without waiting.
 */
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** A tenant subscribed to `types` at the receiver, and the check, queue and worker on one clock. */
const setUp = async (types: WebhookEventType[]) => {
  const clock = { now: Date.now() };
  const now = () => clock.now;
  const tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI'] });
  const endpoint = await createEndpoint(
    { db, secrets: webhookSecrets, local: true, now },
    { tenantId: tenant.tenant.id, url: receiver.url, eventTypes: types, createdBy: null },
  );
  receiver.secret = endpoint.secret;
  const queue = webhookLocalQueue(db, now);
  const publish = createPublisher({ db, queue, now });
  return {
    clock,
    tenant,
    publish,
    check: () => runAlertCheck({ db, publish, now: clock.now }),
    deliver: () => drainLocalQueue({ queue, deps: { db, secrets: webhookSecrets, egress, now } }),
  };
};

describe('alerts reach a receiver that verifies the Standard Webhooks signature', () => {
  it('a daily KPI with no push for 25 h: exactly one kpi.quiet delivery over repeated runs', async () => {
    const run = await setUp(['kpi.quiet']);
    const kpi = run.tenant.kpis[0]!;
    const arrived = new Date(run.clock.now - 25 * HOUR_MS).toISOString();
    await putMeasurement(kpi, '2026-11-01', '2026-11-01', 1, { receivedAt: arrived, updatedAt: arrived });
    await updateKpi(db, run.tenant.tenant.id, kpi.id, { cadence: 'daily' });
    // The first run comes after the KPI exists, as every real one does (its entry is due from then).
    run.clock.now = Date.now();
    for (let quarter = 0; quarter < 4; quarter++) {
      await run.check();
      await run.deliver();
      run.clock.now += 15 * 60_000;
    }
    const mine = receiver.received.filter((r) => r.body.includes(kpi.id));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.verified).toMatchObject({
      ok: true,
      payload: { type: 'kpi.quiet', data: { kpiId: kpi.id, cadence: 'daily', lastMeasurementAt: arrived } },
    });
    expect(mine[0]!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('a key expiring in 6 days: api_key.expiring once, however often the check runs', async () => {
    const run = await setUp(['api_key.expiring']);
    const key = await createApiKey(db, {
      tenantId: run.tenant.tenant.id,
      name: 'nightly export',
      expiresAt: new Date(run.clock.now + 6 * DAY_MS).toISOString(),
    });
    for (let quarter = 0; quarter < 4; quarter++) {
      await run.check();
      await run.deliver();
      run.clock.now += 15 * 60_000;
    }
    const mine = receiver.received.filter((r) => r.body.includes(key.id));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.verified).toMatchObject({
      ok: true,
      payload: { type: 'api_key.expiring', data: { keyId: key.id, prefix: key.prefix } },
    });
    expect(mine[0]!.body).not.toContain(key.key);
  });

  it('a key leaked on GitHub: its revocation sends api_key.revoked once, and a replayed report nothing more', async () => {
    const run = await setUp(['api_key.revoked']);
    const key = await createApiKey(db, { tenantId: run.tenant.tenant.id, name: 'leaked in a repo' });
    const report = [
      {
        token: key.key,
        type: 'strategy_service_api_key',
        url: 'https://github.com/o/r/blob/s/.env',
        source: 'content',
      },
    ];
    expect(await revokeLeakedKeys(db, run.publish, report)).toMatchObject([{ label: 'true_positive' }]);
    expect(await revokeLeakedKeys(db, run.publish, report)).toMatchObject([{ label: 'true_positive' }]);
    await run.deliver();
    const mine = receiver.received.filter((r) => r.body.includes(key.id));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.verified).toMatchObject({
      ok: true,
      payload: { type: 'api_key.revoked', data: { keyId: key.id } },
    });
    expect(mine[0]!.body).not.toContain(key.key);
  });
});
