import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as listMeasurementsHandler } from '../../../../functions/list-measurements';
import { getKpiWithMeasurements } from '../../../../lib/db/kpis';
import { listMeasurements } from '../../../../lib/db/measurements';
import { uuidv7 } from '../../../../lib/ids';
import { invoke } from '../../../support/events';
import { bearer, createTestTenant, db, type TestTenant } from '../../../support/fixtures';
import { captureOutput } from '../../../support/output';

/**
 * Items as 0.1.0 (2026-11-23, commit 35ebcbe) and 0.2.0 (2026-11-25) wrote them, attribute by
 * attribute: deployed tables hold them, and the entity declarations (lib/db/entity.ts) must read them
 * as what they meant. They are written here literally, not through the codecs, since they are the
 * shapes of versions whose code is gone. Where 0.2.0 wrote an entity as 0.1.0 did, one shape stands
 * for both.
 */
const put = (item: Record<string, unknown>) =>
  db.client.send(new PutCommand({ TableName: db.tableName, Item: item }));

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
});

describe('measurement items of 0.1.0 and 0.2.0', () => {
  it('read as written: without a target or forecast they are null, as the provenance of a record push did not write', async () => {
    const kpi = tenant.kpis[0]!;
    const pushed = {
      pk: `KPI#${kpi.id}`,
      sk: 'MEASUREMENT#2025-01-01#2025-01-31',
      type: 'MEASUREMENT',
      id: uuidv7(),
      createdAt: '2025-02-01T06:00:00.000Z',
      tenantId: tenant.tenant.id,
      kpiId: kpi.id,
      kpiType: 'BSC_KPI',
      actual: 41.5,
      forecast: 44,
      periodStart: '2025-01-01',
      periodEnd: '2025-01-31',
      updatedAt: '2025-02-01T06:00:00.000Z',
      receivedAt: '2025-02-01T06:00:00.000Z',
      apiKeyId: uuidv7(),
      apiKeyPrefix: 'skm_a1B2',
    };
    // A record written before push kept where it came from (0.1.0's seed wrote such history).
    const seeded = {
      pk: `KPI#${kpi.id}`,
      sk: 'MEASUREMENT#2025-02-01#2025-02-28',
      type: 'MEASUREMENT',
      id: uuidv7(),
      createdAt: '2025-03-01T06:00:00.000Z',
      tenantId: tenant.tenant.id,
      kpiId: kpi.id,
      kpiType: 'BSC_KPI',
      actual: 2,
      target: 3,
      periodStart: '2025-02-01',
      periodEnd: '2025-02-28',
      updatedAt: '2025-03-01T06:00:00.000Z',
    };
    await Promise.all([put(pushed), put(seeded)]);
    const { items } = await listMeasurements(db, kpi.id, { limit: 10 });
    expect(items).toEqual([
      {
        id: pushed.id,
        kpiId: kpi.id,
        kpiType: 'BSC_KPI',
        actual: 41.5,
        target: null,
        forecast: 44,
        periodStart: '2025-01-01',
        periodEnd: '2025-01-31',
        createdAt: pushed.createdAt,
        updatedAt: pushed.updatedAt,
        receivedAt: pushed.receivedAt,
        apiKeyId: pushed.apiKeyId,
        apiKeyPrefix: 'skm_a1B2',
        integrationId: null,
        integrationName: null,
      },
      {
        id: seeded.id,
        kpiId: kpi.id,
        kpiType: 'BSC_KPI',
        actual: 2,
        target: 3,
        forecast: null,
        periodStart: '2025-02-01',
        periodEnd: '2025-02-28',
        createdAt: seeded.createdAt,
        updatedAt: seeded.updatedAt,
        receivedAt: null,
        apiKeyId: null,
        apiKeyPrefix: null,
        integrationId: null,
        integrationName: null,
      },
    ]);
    const detail = await getKpiWithMeasurements(db, tenant.tenant.id, kpi.id, { limit: 10 });
    expect(detail?.measurements.items).toEqual(items);
  });
});

describe('a malformed item', () => {
  it('is a 500 with a fixed text, and its cause (entity, id, what does not match) in the log', async () => {
    const other = await createTestTenant({ kpiTypes: ['OKR_KEY_RESULT'] });
    const kpi = other.kpis[0]!;
    const id = uuidv7();
    await put({
      pk: `KPI#${kpi.id}`,
      sk: 'MEASUREMENT#2025-01-01#2025-01-31',
      type: 'MEASUREMENT',
      id,
      createdAt: '2025-02-01T06:00:00.000Z',
      tenantId: other.tenant.id,
      kpiId: kpi.id,
      kpiType: 'OKR_KEY_RESULT',
      // A typo in an attribute name: `actual` is missing.
      actaul: 3,
      periodStart: '2025-01-01',
      periodEnd: '2025-01-31',
      updatedAt: '2025-02-01T06:00:00.000Z',
    });
    const { result, lines } = await captureOutput(() =>
      invoke(listMeasurementsHandler, {
        path: `/api/kpis/${kpi.id}/measurements`,
        resource: '/api/kpis/{kpiId}/measurements',
        pathParameters: { kpiId: kpi.id },
        headers: bearer(other.users.VIEWER.token),
      }),
    );
    expect(result.status).toBe(500);
    expect(result.body.detail).not.toContain('MEASUREMENT');
    const failure = lines.find((line) => line.message === 'request failed');
    expect(failure.error).toMatchObject({
      name: 'MalformedItem',
      message: `Stored MEASUREMENT item ${id} is malformed: actual: Invalid input: expected number, received undefined`,
    });
  });
});
