import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as listMeasurementsHandler } from '../../../../functions/list-measurements';
import { findApiKey, getApiKeyByHash, readKeyContext } from '../../../../lib/db/api-keys';
import { encodeScope } from '../../../../lib/db/key-scope';
import { keys } from '../../../../lib/db/keys';
import { getKpiOfTenant, getKpiWithMeasurements } from '../../../../lib/db/kpis';
import { readAttemptCounters } from '../../../../lib/db/login-attempts';
import { listMeasurements } from '../../../../lib/db/measurements';
import { listStrategicCycles } from '../../../../lib/db/strategic-cycles';
import { getTenant } from '../../../../lib/db/tenants';
import { findUserByEmail, getUser } from '../../../../lib/db/users';
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
        replaced: null,
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
        replaced: null,
      },
    ]);
    const detail = await getKpiWithMeasurements(db, tenant.tenant.id, kpi.id, { limit: 10 });
    expect(detail?.measurements.items).toEqual(items);
  });
});

describe('directory items of 0.1.0 and 0.2.0', () => {
  it('a tenant reads as written, with and without its usage plan key', async () => {
    const id = uuidv7();
    const tenantItem = {
      pk: `TENANT#${id}`,
      sk: 'TENANT',
      gsi1pk: 'TENANTS',
      gsi1sk: `TENANT#${id}`,
      type: 'TENANT',
      id,
      name: 'Initech',
      plan: 'business',
      features: ['kpi_push_measurement'],
      active: true,
      createdAt: '2026-11-23T06:00:00.000Z',
      updatedAt: '2026-11-23T06:00:00.000Z',
    };
    await put(tenantItem);
    const { pk: _pk, sk: _sk, gsi1pk: _gpk, gsi1sk: _gsk, type: _type, ...tenant } = tenantItem;
    expect(await getTenant(db, id)).toEqual(tenant);
    const usageKey = { id: 'a1b2c3', value: 'usage-plan-key-value' };
    await put({ ...tenantItem, usageKey });
    expect(await getTenant(db, id)).toEqual({ ...tenant, usageKey });
  });

  it('a user without a token version is at version 0, found by its e-mail claim', async () => {
    const id = uuidv7();
    const tenantId = tenant.tenant.id;
    const email = `old-${id}@example.test`;
    const userItem = {
      pk: `TENANT#${tenantId}`,
      sk: `USER#${id}`,
      type: 'USER',
      id,
      tenantId,
      email,
      role: 'EDITOR',
      disabled: false,
      passwordHash: 'scrypt$32768$8$3$c2FsdA$aGFzaA',
      createdAt: '2026-11-23T06:00:00.000Z',
      updatedAt: '2026-11-23T06:00:00.000Z',
    };
    await Promise.all([
      put(userItem),
      put({ pk: `EMAIL#${email}`, sk: 'EMAIL', type: 'EMAIL', tenantId, userId: id }),
    ]);
    const { pk: _pk, sk: _sk, type: _type, ...user } = userItem;
    // What people management added reads as absent: no name, never signed in, not invited, no open link.
    const read = {
      ...user,
      tokenVersion: 0,
      name: null,
      lastSignInAt: null,
      invitedBy: null,
      linkHash: null,
    };
    expect(await getUser(db, tenantId, id)).toEqual(read);
    expect((await findUserByEmail(db, email))?.user).toEqual(read);
  });

  it('a strategic cycle reads as written, without its tenant, and as active', async () => {
    const owner = await createTestTenant({ kpiTypes: [] });
    const id = uuidv7();
    const cycle = {
      id,
      name: 'Strategy 2026',
      startDate: '2026-01-01',
      endDate: '2026-12-31',
      createdAt: '2026-11-23T06:00:00.000Z',
    };
    await put({
      pk: `TENANT#${owner.tenant.id}`,
      sk: `CYCLE#${id}`,
      type: 'CYCLE',
      tenantId: owner.tenant.id,
      ...cycle,
    });
    // A cycle stored before cycles had a status was in use: it reads as active.
    expect((await listStrategicCycles(db, owner.tenant.id, { limit: 10 })).items).toEqual([
      { ...cycle, status: 'active' },
    ]);
  });
});

describe('KPI items of 0.1.0 and 0.2.0', () => {
  it('read with the defaults of what came later: target rule, cadence and a monthly period', async () => {
    const id = uuidv7();
    const tenantId = tenant.tenant.id;
    await put({
      pk: `KPI#${id}`,
      sk: 'KPI',
      gsi1pk: `TENANT#${tenantId}`,
      gsi1sk: `KPI#${id}`,
      type: 'KPI',
      kpiType: 'OKR_KEY_RESULT',
      id,
      tenantId,
      name: 'Deployments per week',
      unit: 'deployments',
      createdAt: '2026-11-23T06:00:00.000Z',
    });
    expect(await getKpiOfTenant(db, tenantId, id)).toEqual({
      id,
      tenantId,
      type: 'OKR_KEY_RESULT',
      name: 'Deployments per week',
      unit: 'deployments',
      createdAt: '2026-11-23T06:00:00.000Z',
      period: 'month',
      direction: 'higher_is_better',
      tolerance: 0.1,
      qualitative: false,
      cadence: 'none',
      graceHours: 1,
    });
  });
});

describe('API key items of 0.1.0 and 0.2.0', () => {
  const keyItem = (tenantId: string, id: string, hash: string, extra: Record<string, unknown> = {}) => ({
    pk: `APIKEY#${hash}`,
    sk: 'APIKEY',
    gsi1pk: `TENANT#${tenantId}`,
    gsi1sk: `APIKEY#${id}`,
    type: 'APIKEY',
    id,
    tenantId,
    name: 'nightly export',
    prefix: 'skm_Old1',
    createdAt: '2026-11-23T06:00:00.000Z',
    ...extra,
  });
  // What their absent attributes read as: a key of theirs works from any address (allowedSources null).
  const unused = {
    expiresAt: null,
    lastUsedAt: null,
    revokedAt: null,
    kpiIds: null,
    allowedSources: null,
    createdBy: null,
    revokedBy: null,
    rolledAt: null,
    rolledBy: null,
    replacedBy: null,
    replaces: null,
  };

  it('a key read by its hash and by its id: scope, audit actors (a bare user id too) and roll as written', async () => {
    const owner = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const tenantId = owner.tenant.id;
    const [id, next, userId] = [uuidv7(), uuidv7(), uuidv7()];
    const hash = 'a'.repeat(64);
    const scope = owner.kpis.map((kpi) => kpi.id);
    await put(
      keyItem(tenantId, id, hash, {
        expiresAt: '2026-11-30T06:00:00.000Z',
        kpiScope: encodeScope(scope),
        // Keys made before actors had types name their creator by user id alone.
        createdBy: userId,
        rolledAt: '2026-11-23T07:00:00.000Z',
        rolledBy: { type: 'operator', name: 'ops' },
        replacedBy: { id: next, prefix: 'skm_New1' },
        revokedAt: '2026-11-23T08:00:00.000Z',
        revokedBy: { type: 'user', userId },
      }),
    );
    const key = {
      ...unused,
      id,
      tenantId,
      name: 'nightly export',
      prefix: 'skm_Old1',
      createdAt: '2026-11-23T06:00:00.000Z',
      expiresAt: '2026-11-30T06:00:00.000Z',
      kpiIds: scope,
      createdBy: { type: 'user', userId },
      rolledAt: '2026-11-23T07:00:00.000Z',
      rolledBy: { type: 'operator', name: 'ops' },
      replacedBy: { id: next, prefix: 'skm_New1' },
      revokedAt: '2026-11-23T08:00:00.000Z',
      revokedBy: { type: 'user', userId },
    };
    expect(await getApiKeyByHash(db, hash)).toEqual(key);
    expect(await findApiKey(db, tenantId, id)).toEqual({ key, keyHash: hash });
  });

  it('a plain key, and the slot list of a plan with a maximum', async () => {
    const owner = await createTestTenant({ kpiTypes: [] });
    const tenantId = owner.tenant.id;
    const id = uuidv7();
    const hash = 'b'.repeat(64);
    await Promise.all([
      put(keyItem(tenantId, id, hash, { replaces: { id: uuidv7(), prefix: 'skm_Prev' } })),
      put({
        pk: `TENANT#${tenantId}`,
        sk: 'APIKEYSLOTS',
        type: 'APIKEYSLOTS',
        holders: { [id]: hash },
        version: 4,
      }),
    ]);
    expect((await getApiKeyByHash(db, hash))?.replaces).toMatchObject({ prefix: 'skm_Prev' });
    expect((await readKeyContext(db, tenantId)).slots).toEqual({
      exists: true,
      version: 4,
      holders: { [id]: hash },
    });
  });
});

describe('login failure counters of 0.1.0 and 0.2.0', () => {
  it('read as the per-e-mail counter they were, without a delay', async () => {
    const email = `old-${uuidv7()}@example.test`;
    const now = Date.parse('2026-11-23T06:05:00.000Z');
    const windowStart = now - 60_000;
    await put({
      pk: `LOGIN#${email}`,
      sk: 'FAILURES',
      type: 'LOGIN_FAILURES',
      count: 4,
      windowStart,
      ttl: Math.ceil((windowStart + 900_000) / 1000),
    });
    expect(
      await readAttemptCounters(db, [keys.loginAttemptsOfEmail(email)], { windowSeconds: 900, now }),
    ).toEqual([{ count: 4, windowStart, windowEndsAt: windowStart + 900_000, retryAt: 0 }]);
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
