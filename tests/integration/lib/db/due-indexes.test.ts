import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runAlertCheck } from '../../../../lib/alerts/check';
import { shardDueIndexes } from '../../../../lib/db/due-indexes';
import { keys, shardOf } from '../../../../lib/db/keys';
import { dueIntegrations } from '../../../../lib/db/pull-integrations';
import { updateKpi } from '../../../../lib/kpis/settings';
import type { WebhookEvent } from '../../../../lib/webhooks/events';
import { createTestTenant, db, pullIntegrationRecord, storePullIntegration } from '../../../support/fixtures';

/** Items stored before the due indexes were sharded: in the single partitions `CADENCE` and `PULLDUE`. */
const itemOf = async (key: { pk: string; sk: string }) =>
  (await db.client.send(new GetCommand({ TableName: db.tableName, Key: key }))).Item ?? {};
const unshard = (key: { pk: string; sk: string }, gsi2pk: string, gsi2sk: string) =>
  db.client.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: key,
      UpdateExpression: 'SET gsi2pk = :pk, gsi2sk = :sk',
      ExpressionAttributeValues: { ':pk': gsi2pk, ':sk': gsi2sk },
    }),
  );

describe('shard-due-indexes: entries of the unsharded partitions move into their shards', () => {
  it('moves each KPI (due for a look at once) and each integration (at its due time) once; the check and the scheduler then find them', async () => {
    const tenant = await createTestTenant({
      features: ['kpi_push_measurement', 'kpi_api_integration'],
      kpiTypes: ['BSC_KPI'],
    });
    const kpi = tenant.kpis[0]!;
    await updateKpi(db, tenant.tenant.id, kpi.id, { cadence: 'daily', graceHours: 0 });
    await unshard(keys.kpi(kpi.id), 'CADENCE', `TENANT#${tenant.tenant.id}#KPI#${kpi.id}`);
    const dueAt = '2000-02-01T00:00:00.000Z';
    const integration = await storePullIntegration(pullIntegrationRecord(kpi, dueAt));
    const integrationKey = keys.pullIntegration(tenant.tenant.id, integration.id);
    const entry = `${dueAt}#${tenant.tenant.id}#${integration.id}`;
    await unshard(integrationKey, 'PULLDUE', entry);

    const later = Date.parse(kpi.createdAt) + 2 * 86_400_000;
    const published: WebhookEvent[] = [];
    const check = () =>
      runAlertCheck({ db, publish: async (event) => void published.push(event), now: later });
    const ours = () => published.filter((event) => event.tenantId === tenant.tenant.id);
    // Before: neither reader sees them.
    await check();
    expect(ours()).toEqual([]);
    expect((await dueIntegrations(db, Date.parse(dueAt))).map((d) => d.integrationId)).not.toContain(
      integration.id,
    );

    const now = Date.now();
    const moved = await shardDueIndexes(db, now);
    expect(moved.kpis).toBeGreaterThanOrEqual(1);
    expect(moved.integrations).toBeGreaterThanOrEqual(1);
    expect(await itemOf(keys.kpi(kpi.id))).toMatchObject(
      keys.kpiQuietIndex(kpi.id, new Date(now).toISOString()),
    );
    expect(await itemOf(integrationKey)).toMatchObject({
      gsi2pk: `PULLDUE#${shardOf(integration.id)}`,
      gsi2sk: entry,
    });
    // Again: nothing left to move.
    expect(await shardDueIndexes(db, now)).toEqual({ kpis: 0, integrations: 0 });

    await check();
    expect(ours().map((event) => event.data.kpiId)).toEqual([kpi.id]);
    expect((await dueIntegrations(db, Date.parse(dueAt))).map((d) => d.integrationId)).toContain(
      integration.id,
    );
  });
});
