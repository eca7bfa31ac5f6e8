import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../../lib/db/keys';
import { createKpi } from '../../../../lib/db/kpis';
import { integrationCount, integrationPage } from '../../../../lib/db/pull-integrations';
import { systemContext } from '../../../../lib/domain/audit-event';
import { PULL_INTEGRATION_LIMITS } from '../../../../lib/domain/plan';
import { createIntegration, updateIntegration } from '../../../../lib/pull/definitions';
import { openSecrets, pullSecretBinding } from '../../../../lib/pull/secrets';
import { removeIntegration } from '../../../../lib/pull/service';
import { pullDeps } from '../../../../lib/runtime';
import { createTestTenant, db, type TestTenant } from '../../../support/fixtures';
import { captureOutput } from '../../../support/output';

/**
 * What a definition must be beyond its schema, at the use case: every problem named at once, by the
 * path of its field, before anything is read or written.
 */
let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({
    features: ['kpi_push_measurement', 'kpi_api_integration'],
    kpiTypes: ['BSC_KPI', 'BSC_KPI'],
  });
});

const definition = () => ({
  name: 'Revenue',
  url: 'https://source.example.com/revenue',
  auth: { type: 'none' as const },
  schedule: { every: 'day' as const },
  bindings: [{ kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI' as const, actual: 'value' }],
  tenantId: tenant.tenant.id,
  createdBy: null,
});

describe('a new pull integration', () => {
  it('is refused with every problem named by its path: schedule, URL, auth, period and bindings', async () => {
    const kpiId = tenant.kpis[0]!.id;
    const refusal = createIntegration(pullDeps, {
      ...definition(),
      url: 'ftp://source.example.com/revenue',
      headers: { 'X-Token': 'a' },
      auth: { type: 'header', name: 'x-token', value: 'secret' },
      schedule: { every: '15m', at: '09:00' },
      period: { start: 'value[', end: 'period.end' },
      bindings: [
        { kpiId, kpiType: 'BSC_KPI', actual: 'value[' },
        { kpiId, kpiType: 'BSC_KPI', actual: 'value', target: 'target[', forecast: 'forecast[' },
      ],
    });
    const problem = expect.any(String);
    await expect(refusal).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'The request body has 8 invalid field(s).',
      errors: [
        { path: 'schedule.at', message: 'at is only for day, week and month' },
        { path: 'url', message: problem },
        { path: 'auth.name', message: 'is also in headers: name it once' },
        { path: 'period.start', message: problem },
        { path: 'bindings[0].actual', message: problem },
        { path: 'bindings[1].target', message: problem },
        { path: 'bindings[1].forecast', message: problem },
        { path: 'bindings[1].kpiId', message: 'same KPI as bindings[0]' },
      ],
    });
  });

  it('needs each binding’s KPI to be the tenant’s, of its type: NOT_FOUND naming the others', async () => {
    const unknown = '0193e1a2-3b4c-7d5e-8f60-718293a4b5c6';
    const another = '0193e1a2-3b4c-7d5e-8f60-718293a4b5c7';
    await expect(
      createIntegration(pullDeps, {
        ...definition(),
        bindings: [
          { kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'value' },
          { kpiId: unknown, kpiType: 'BSC_KPI', actual: 'other' },
          { kpiId: another, kpiType: 'BSC_KPI', actual: 'third' },
        ],
      }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `No KPI of this organization with the given id and kpiType: ${unknown}, ${another}.`,
      extensions: { missingKpiIds: [unknown, another] },
    });
  });

  it('names the real type of a tenant KPI bound with another type', async () => {
    const kpi = tenant.kpis[0]!;
    await expect(
      createIntegration(pullDeps, {
        ...definition(),
        bindings: [{ kpiId: kpi.id, kpiType: 'SWOT_KPI', actual: 'value' }],
      }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `No KPI of this organization with the given id and kpiType: ${kpi.id}. ${kpi.id} is a BSC_KPI, not SWOT_KPI.`,
    });
  });
});

describe('the period of a pull integration', () => {
  it('must be each bound KPI’s own when it is a unit: 400 naming the binding and the KPI’s period', async () => {
    const weekly = await createKpi(db, tenant.tenant.id, { type: 'BSC_KPI', name: 'Weekly', period: 'week' });
    await expect(
      createIntegration(pullDeps, {
        ...definition(),
        period: 'quarter',
        bindings: [
          { kpiId: tenant.kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'value' },
          { kpiId: weekly.id, kpiType: 'BSC_KPI', actual: 'other' },
        ],
      }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [
        {
          path: 'bindings[0].kpiId',
          message: expect.stringContaining("the KPI's period is month, not the integration's quarter"),
        },
        { path: 'bindings[1].kpiId', message: expect.stringContaining("the KPI's period is week") },
      ],
    });
    // No period: a month, as a push without one; a period read from the answer is checked at each run.
    await expect(createIntegration(pullDeps, definition())).resolves.toMatchObject({ period: 'month' });
    const created = await createIntegration(pullDeps, {
      ...definition(),
      period: { start: 'from', end: 'to' },
      bindings: [{ kpiId: weekly.id, kpiType: 'BSC_KPI', actual: 'value' }],
    });
    // A change of the period alone is checked against the stored bindings.
    await expect(
      updateIntegration(pullDeps, tenant.tenant.id, created.id, { period: 'month' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'bindings[0].kpiId', message: expect.stringContaining('period is week') }],
    });
    await expect(
      updateIntegration(pullDeps, tenant.tenant.id, created.id, { period: 'week' }),
    ).resolves.toMatchObject({
      period: 'week',
    });
  });
});

describe('a change of a pull integration', () => {
  it('needs the new secret when its auth type changes, and keeps the stored one otherwise', async () => {
    const created = await createIntegration(pullDeps, {
      ...definition(),
      auth: { type: 'header', name: 'X-Api-Token', value: 'first-secret' },
    });
    await expect(
      updateIntegration(pullDeps, tenant.tenant.id, created.id, {
        auth: { type: 'bearer', token: undefined },
      }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'auth.token', message: 'is required when the type changes to bearer' }],
    });
    // Another header name is another destination: the stored value does not follow it.
    await expect(
      updateIntegration(pullDeps, tenant.tenant.id, created.id, {
        auth: { type: 'header', name: 'X-Other-Token', value: undefined },
      }),
    ).rejects.toMatchObject({
      errors: [
        {
          path: 'auth.value',
          message: 'is required when auth.name changes: a stored secret is never sent to a new destination',
        },
      ],
    });
    // The same type and header without its value keeps the stored secret; a header of the auth's name is refused.
    const respelled = await updateIntegration(pullDeps, tenant.tenant.id, created.id, {
      auth: { type: 'header', name: 'x-api-token', value: undefined },
    });
    expect(respelled.auth).toEqual({ type: 'header', name: 'x-api-token', value: { set: true } });
    expect(respelled.sealedSecrets).not.toBeNull();
    await expect(
      updateIntegration(pullDeps, tenant.tenant.id, created.id, { headers: { 'X-API-TOKEN': 'b' } }),
    ).rejects.toMatchObject({ errors: [{ path: 'auth.name', message: 'is also in headers: name it once' }] });
  });

  it('is audited naming the fields it changed, in order, in the name of the service when nobody is named', async () => {
    const { result: created, lines: creation } = await captureOutput(() =>
      createIntegration(pullDeps, definition()),
    );
    expect(creation.filter((line) => line.audit === 'integration.created')).toEqual([
      expect.objectContaining({ integrationId: created.id, actorType: 'system', actorId: 'service' }),
    ]);
    const { lines } = await captureOutput(() =>
      updateIntegration(pullDeps, tenant.tenant.id, created.id, { url: created.url, name: 'Renamed' }),
    );
    expect(lines.filter((line) => line.audit === 'integration.updated')).toEqual([
      expect.objectContaining({ integrationId: created.id, fields: 'name,url', actorId: 'service' }),
    ]);
  });
});

describe('a change of an integration whose stored secret no longer opens', () => {
  it('needs the secret sent again to keep its type, takes a new one, and names a KPI it does not find', async () => {
    const created = await createIntegration(pullDeps, {
      ...definition(),
      auth: { type: 'bearer', token: 'first-token' },
    });
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.pullIntegration(created.tenantId, created.id),
        UpdateExpression: 'SET sealedSecrets = :sealed',
        ExpressionAttributeValues: { ':sealed': 'p1.sealed-under-a-key-the-service-no-longer-has' },
      }),
    );
    await expect(
      updateIntegration(pullDeps, tenant.tenant.id, created.id, {
        auth: { type: 'bearer', token: undefined },
      }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'auth.token', message: 'the stored secret could not be opened: send it again' }],
    });
    // A change that leaves the authentication and its destination alone keeps the sealed text as it is.
    const renamed = await updateIntegration(pullDeps, tenant.tenant.id, created.id, { name: 'Kept' });
    expect(renamed.sealedSecrets).toBe('p1.sealed-under-a-key-the-service-no-longer-has');
    await expect(
      updateIntegration(pullDeps, tenant.tenant.id, created.id, { url: 'https://other.example.com/x' }),
    ).rejects.toMatchObject({ errors: [{ path: 'auth.token' }] });
    const renewed = await updateIntegration(pullDeps, tenant.tenant.id, created.id, {
      auth: { type: 'bearer', token: 'second-token' },
    });
    expect(renewed.sealedSecrets).toMatch(/^p2\./);
    const unknown = '0193e1a2-3b4c-7d5e-8f60-718293a4b5c8';
    await expect(
      updateIntegration(pullDeps, tenant.tenant.id, created.id, {
        bindings: [{ kpiId: unknown, kpiType: 'BSC_KPI', actual: 'value' }],
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', extensions: { missingKpiIds: [unknown] } });
  });
});

describe('credentials sealed before they were bound to their destination (p1.)', () => {
  it('still open for their integration, and any change seals them anew for the destination (p2.)', async () => {
    const created = await createIntegration(pullDeps, {
      ...definition(),
      auth: { type: 'bearer', token: 'former-token' },
    });
    const former = await pullDeps.secrets.former.seal(
      JSON.stringify({ token: 'former-token' }),
      `pull-credentials:${created.tenantId}:${created.id}`,
    );
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.pullIntegration(created.tenantId, created.id),
        UpdateExpression: 'SET sealedSecrets = :sealed',
        ExpressionAttributeValues: { ':sealed': former },
      }),
    );
    expect(await openSecrets(pullDeps.secrets, created, former)).toEqual({ token: 'former-token' });
    // A change of the URL's origin needs the secret sent again, whatever form it is stored in.
    await expect(
      updateIntegration(pullDeps, tenant.tenant.id, created.id, { url: 'https://elsewhere.example.com/x' }),
    ).rejects.toMatchObject({ errors: [{ path: 'auth.token' }] });
    const renamed = await updateIntegration(pullDeps, tenant.tenant.id, created.id, { name: 'Renamed' });
    expect(renamed.sealedSecrets).toMatch(/^p2\./);
    expect(await openSecrets(pullDeps.secrets, renamed, renamed.sealedSecrets)).toEqual({
      token: 'former-token',
    });
    expect(
      await openSecrets(
        pullDeps.secrets,
        { ...renamed, url: 'https://elsewhere.example.com/x' },
        renamed.sealedSecrets,
      ),
    ).toBeUndefined();
  });
});

describe('a change of an integration whose stored credentials lack the type’s secret', () => {
  it('never seals a shown placeholder as the secret: the secret must be sent again', async () => {
    const created = await createIntegration(pullDeps, {
      ...definition(),
      auth: { type: 'bearer', token: 't' },
    });
    const emptied = await pullDeps.secrets.current.seal(
      JSON.stringify({}),
      pullSecretBinding({ ...created, auth: created.auth }),
    );
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.pullIntegration(created.tenantId, created.id),
        UpdateExpression: 'SET sealedSecrets = :sealed',
        ExpressionAttributeValues: { ':sealed': emptied },
      }),
    );
    await expect(
      updateIntegration(pullDeps, tenant.tenant.id, created.id, {
        auth: { type: 'bearer', token: undefined },
      }),
    ).rejects.toMatchObject({
      errors: [{ path: 'auth.token', message: 'the stored secret could not be opened: send it again' }],
    });
    const renamed = await updateIntegration(pullDeps, tenant.tenant.id, created.id, { name: 'Still' });
    expect(renamed.sealedSecrets).toBe(emptied);
  });
});

describe('the plan maximum of integrations', () => {
  it('holds under concurrency: of 13 creations at once on the free plan, 10 are stored and 3 refused naming the maximum; a deletion makes room', async () => {
    const free = await createTestTenant({
      plan: 'free',
      features: ['kpi_push_measurement', 'kpi_api_integration'],
      kpiTypes: ['BSC_KPI'],
    });
    const of = () => ({
      ...definition(),
      bindings: [{ kpiId: free.kpis[0]!.id, kpiType: 'BSC_KPI' as const, actual: 'value' }],
      tenantId: free.tenant.id,
    });
    const results = await Promise.allSettled(
      Array.from({ length: 13 }, () => createIntegration(pullDeps, of())),
    );
    const stored = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(stored).toHaveLength(PULL_INTEGRATION_LIMITS.free);
    expect(refused).toHaveLength(3);
    for (const reason of refused) {
      expect(reason).toMatchObject({
        code: 'PULL_INTEGRATION_LIMIT_REACHED',
        message:
          'The free plan allows 10 pull integrations and all 10 exist. Delete one or upgrade the plan.',
        extensions: { limit: 10, plan: 'free' },
      });
    }
    expect((await integrationPage(db, free.tenant.id, { limit: 100 })).items).toHaveLength(10);
    expect(await integrationCount(db, free.tenant.id)).toBe(10);
    await removeIntegration(pullDeps, free.tenant.id, stored[0]!.id, systemContext('test'));
    expect(await integrationCount(db, free.tenant.id)).toBe(9);
    await expect(createIntegration(pullDeps, of())).resolves.toMatchObject({ tenantId: free.tenant.id });
    await expect(createIntegration(pullDeps, of())).rejects.toMatchObject({
      code: 'PULL_INTEGRATION_LIMIT_REACHED',
    });
  });

  it('is a maximum of every plan', () => {
    expect(PULL_INTEGRATION_LIMITS).toEqual({ free: 10, business: 100, enterprise: 500 });
  });
});
