import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys } from '../../../../lib/db/keys';
import {
  countRun,
  dueIntegrations,
  integrationPage,
  PULL_RETENTION_DAYS,
  runPage,
  type StoredIntegration,
  usageDaysOf,
} from '../../../../lib/db/pull-integrations';
import { uuidv7 } from '../../../../lib/ids';
import { createTestTenant, db, pullIntegrationRecord, storePullIntegration } from '../../../support/fixtures';

/**
 * Pull integrations at the repository: the due index holds an integration while it is active and has a
 * next run, and a tenant's list pages with cursors of its own partition only.
 */
const stored = (tenantId: string, kpiId: string, changes: Partial<StoredIntegration> = {}) =>
  pullIntegrationRecord({ id: kpiId, tenantId }, '2004-01-01T00:00:00.000Z', changes);

const put = storePullIntegration;

const newTenant = () =>
  createTestTenant({ features: ['kpi_push_measurement', 'kpi_api_integration'], kpiTypes: ['BSC_KPI'] });

describe('the due index', () => {
  it('holds an active integration with a next run, at its time, and neither a disabled one nor one without a next run', async () => {
    const { tenant, kpis } = await newTenant();
    const kpiId = kpis[0]!.id;
    const due = await put(stored(tenant.id, kpiId));
    const later = await put(stored(tenant.id, kpiId, { nextRunAt: '2004-01-01T00:00:00.001Z' }));
    await put(stored(tenant.id, kpiId, { status: 'disabled', disabledAt: '2003-12-31T00:00:00.000Z' }));
    await put(stored(tenant.id, kpiId, { nextRunAt: null }));
    const found = await dueIntegrations(db, Date.parse('2004-01-01T00:00:00.000Z'));
    expect(found).toEqual([
      {
        tenantId: tenant.id,
        integrationId: due.id,
        entry: expect.any(String),
        dueAt: '2004-01-01T00:00:00.000Z',
      },
    ]);
    const both = await dueIntegrations(db, Date.parse('2004-01-01T00:00:00.001Z'));
    expect(both.map(({ integrationId }) => integrationId)).toEqual([due.id, later.id]);
  });
});

describe('a tenant’s list', () => {
  it('pages with its own cursors, and refuses another tenant’s', async () => {
    const one = await newTenant();
    const other = await newTenant();
    const ids = [];
    for (let n = 0; n < 3; n++) ids.push((await put(stored(one.tenant.id, one.kpis[0]!.id))).id);
    await put(stored(other.tenant.id, other.kpis[0]!.id));
    const first = await integrationPage(db, one.tenant.id, { limit: 2 });
    const second = await integrationPage(db, one.tenant.id, { limit: 2, cursor: first.nextCursor });
    expect([...first.items, ...second.items].map(({ id }) => id)).toEqual(ids);
    expect(second.nextCursor).toBeUndefined();
    await expect(
      integrationPage(db, other.tenant.id, { limit: 2, cursor: first.nextCursor }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('an integration’s usage day', () => {
  it('counts runs, measurements and failures by class, and expires a day after the retention', async () => {
    const integrationId = uuidv7();
    const day = '2026-11-20';
    await countRun(db, integrationId, day, { measurements: 3, errorClass: null, failed: false });
    await countRun(db, integrationId, day, { measurements: 0, errorClass: 'timeout', failed: true });
    await countRun(db, integrationId, day, { measurements: 1, errorClass: null, failed: true });
    const [usage] = await usageDaysOf(db, integrationId, day, day);
    expect(usage).toMatchObject({ date: day, runs: 3, measurements: 4, failed: 2 });
    expect(usage?.failures.timeout).toBe(1);
    expect(Object.values(usage?.failures ?? {}).reduce((a, b) => a + b, 0)).toBe(1);
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.pullUsageDay(integrationId, day) }),
    );
    expect(Item?.ttl).toBe(Date.parse(`${day}T00:00:00Z`) / 1000 + (PULL_RETENTION_DAYS + 1) * 86_400);
    // A counter per class that failed, and none for runs that had no error class.
    expect(Object.keys(Item ?? {}).sort()).toEqual(
      ['failed', 'failed_timeout', 'measurements', 'pk', 'runs', 'sk', 'ttl', 'type'].sort(),
    );
  });
});

describe('an integration’s runs', () => {
  it('page with cursors of the integration’s own partition only', async () => {
    const other = uuidv7();
    const cursor = Buffer.from(JSON.stringify(keys.pullRun(other, uuidv7()))).toString('base64url');
    await expect(runPage(db, uuidv7(), { limit: 10, cursor })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
