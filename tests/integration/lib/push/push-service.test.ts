import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../../../lib/api-keys/key-format';
import { createApiKey, revokeApiKey } from '../../../../lib/api-keys/service';
import { getApiKeyByHash } from '../../../../lib/db/api-keys';
import { keys } from '../../../../lib/db/keys';
import { listMeasurements } from '../../../../lib/db/measurements';
import { getTenant } from '../../../../lib/db/tenants';
import { AppError } from '../../../../lib/errors';
import type { MeasurementInput } from '../../../../lib/push/measurement-schema';
import { type PushDeps, type PushRequest, pushMeasurements } from '../../../../lib/push/push-service';
import { createTenantCache } from '../../../../lib/tenant-cache';
import { createRawKey, createTestTenant, db, publish, type TestTenant } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';
import { captureOutput, metricsOf } from '../../../support/output';
import { monthlyMeasurements } from '../../../support/push';

const measurements = (tenant: TestTenant, count: number, year: number) =>
  monthlyMeasurements(tenant.kpis, count, year);

const RATE_LIMITS = { windowSeconds: 60, perPlan: { free: 60, business: 300, enterprise: 3000 } };

let tenant: TestTenant;
let apiKey: string;
let keyId: string;
beforeAll(async () => {
  tenant = await createTestTenant();
  apiKey = await createRawKey(tenant.tenant.id);
  keyId = (await getApiKeyByHash(db, hashApiKey(apiKey)))!.id;
});

/** Every item of the table: a rejected request must leave this unchanged. */
const itemCount = async () => {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.client.send(
      new ScanCommand({ TableName: db.tableName, Select: 'COUNT', ExclusiveStartKey: start }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
};

const setup = (ttlSeconds = 30) => {
  const probe = instrument(db);
  const deps: PushDeps = {
    db: probe.db,
    tenants: createTenantCache({ ttlSeconds, load: (id) => getTenant(probe.db, id) }),
    rateLimits: RATE_LIMITS,
  };
  return { probe, deps };
};

/** As the push handler calls it behind the API Gateway authorizer, which vouched for the key. */
const viaAuthorizer = (key: string, id: string, body: MeasurementInput[]): PushRequest => ({
  apiKey: key,
  authorizer: { keyId: id, status: 'active' },
  input: Promise.resolve({ measurements: body }),
});

describe('push cost at the write floor (budgets, ConsumedCapacity from DynamoDB Local)', () => {
  it('single push, tenant cached: 2 sequential round trips, ≤ 3 write units in all and ≤ 2 read units', async () => {
    const { probe, deps } = setup();
    await pushMeasurements(deps, viaAuthorizer(apiKey, keyId, measurements(tenant, 1, 2010))); // warms the tenant
    probe.reset();
    const result = await pushMeasurements(deps, viaAuthorizer(apiKey, keyId, measurements(tenant, 1, 2011)));
    expect(result.items.map((item) => item.status)).toEqual(['created']);
    expect(probe.rounds()).toBe(2);
    const { read, write } = probe.capacity();
    // measurement 1 + rate counter 1 + lastUsedAt 1; the key and the KPI, strongly consistent.
    expect(write).toBeLessThanOrEqual(3);
    expect(read).toBeLessThanOrEqual(2);
    expect(probe.calls.map((c) => c.command).sort()).toEqual(
      ['BatchGetItemCommand', 'UpdateItemCommand', 'UpdateItemCommand', 'UpdateItemCommand'].sort(),
    );
  });

  it('re-pushing the same period is still one write unit for the measurement and answers "updated"', async () => {
    const { probe, deps } = setup();
    const body = measurements(tenant, 1, 2012);
    await pushMeasurements(deps, viaAuthorizer(apiKey, keyId, body));
    probe.reset();
    const again = await pushMeasurements(deps, viaAuthorizer(apiKey, keyId, body));
    expect(again.items.map((item) => item.status)).toEqual(['updated']);
    expect(probe.capacity().write).toBeLessThanOrEqual(3);
  });

  it('batch of 50 (mixed KPI types), tenant cached: 2 round trips and ≤ 52 write units', async () => {
    const { probe, deps } = setup();
    await pushMeasurements(deps, viaAuthorizer(apiKey, keyId, measurements(tenant, 1, 2013)));
    probe.reset();
    const result = await pushMeasurements(deps, viaAuthorizer(apiKey, keyId, measurements(tenant, 50, 2014)));
    expect(result.items).toHaveLength(50);
    expect(probe.rounds()).toBe(2);
    expect(probe.capacity().write).toBeLessThanOrEqual(52);
    expect(probe.calls.filter((c) => c.command === 'BatchWriteItemCommand')).toHaveLength(2);
  });

  it('without the authorizer (a direct invocation) the request is counted after the key was read: 3 round trips', async () => {
    const { probe, deps } = setup();
    await pushMeasurements(deps, viaAuthorizer(apiKey, keyId, measurements(tenant, 1, 2015)));
    probe.reset();
    await pushMeasurements(deps, {
      apiKey,
      input: Promise.resolve({ measurements: measurements(tenant, 1, 2016) }),
    });
    expect(probe.rounds()).toBe(3);
  });

  it('the day’s usage item takes the counter and the accepted push at one write unit each: no index is written', async () => {
    const { probe, deps } = setup();
    const today = keys.apiKeyUsageDay(hashApiKey(apiKey), new Date().toISOString().slice(0, 10));
    const usage = async () =>
      (await db.client.send(new GetCommand({ TableName: db.tableName, Key: today }))).Item ?? {};
    const before = await usage();
    await pushMeasurements(deps, viaAuthorizer(apiKey, keyId, measurements(tenant, 3, 2017)));
    const usageUpdates = probe.calls.filter((c) => c.input.Key?.sk === today.sk);
    expect(usageUpdates.map((c) => c.units)).toEqual([1, 1]); // the counter, then the accepted push
    const after = await usage();
    expect(Number(after.requests) - Number(before.requests ?? 0)).toBe(1);
    expect(Number(after.accepted) - Number(before.accepted ?? 0)).toBe(1);
    expect(Number(after.measurements) - Number(before.measurements ?? 0)).toBe(3);
    expect(after.gsi1pk).toBeUndefined();
  });
});

/** A key's refusals by reason on today's usage item, as stored. */
const refusalsOf = async (key: string) => {
  const { Item = {} } = await db.client.send(
    new GetCommand({
      TableName: db.tableName,
      Key: keys.apiKeyUsageDay(hashApiKey(key), new Date().toISOString().slice(0, 10)),
    }),
  );
  return Object.fromEntries(Object.entries(Item).filter(([name]) => name.startsWith('refused_')));
};

describe('a rejected push writes no measurement; only a known key’s usage counts it', () => {
  const attempt = (deps: PushDeps, request: PushRequest) =>
    pushMeasurements(deps, request).then(
      () => 200,
      (error: AppError) => error.status,
    );

  it('1000 requests with an unknown well-formed key: 401, 0 items created, 0 write units', async () => {
    const { probe, deps } = setup();
    const before = await itemCount();
    // Well-formed keys no one was given: anyone can compute a right checksum, the hash is not known.
    const forged = Array.from({ length: 1000 }, () => generateApiKey());
    const statuses = [];
    for (let i = 0; i < forged.length; i += 50) {
      statuses.push(
        ...(await Promise.all(
          forged.slice(i, i + 50).map((key) =>
            attempt(deps, {
              apiKey: key,
              input: Promise.resolve({ measurements: measurements(tenant, 1, 2020) }),
            }),
          ),
        )),
      );
    }
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(probe.capacity().write).toBe(0);
    expect(await itemCount()).toBe(before);
  });

  it('a key that fails its checksum, or none at all, is refused before any database call (docs/performance.md)', async () => {
    const { probe, deps } = setup();
    const badChecksum = `${apiKey.slice(0, -1)}${apiKey.endsWith('a') ? 'b' : 'a'}`;
    for (const key of [badChecksum, apiKey.slice(0, -2), 'sk_live_x', undefined]) {
      await expect(
        pushMeasurements(deps, {
          apiKey: key,
          input: Promise.resolve({ measurements: measurements(tenant, 1, 2020) }),
        }),
      ).rejects.toMatchObject({
        code: 'INVALID_API_KEY',
        headers: { 'WWW-Authenticate': 'ApiKey header="x-api-key"' },
      });
    }
    expect(probe.calls).toEqual([]);
  });

  it('a key whose organization record is gone is refused like an inactive one (403), never a 500', async () => {
    const orphan = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const key = await createRawKey(orphan.tenant.id);
    await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.tenant(orphan.tenant.id) }));
    const { probe, deps } = setup(0);
    await expect(
      pushMeasurements(deps, {
        apiKey: key,
        input: Promise.resolve({ measurements: measurements(orphan, 1, 2020) }),
      }),
    ).rejects.toMatchObject({ code: 'TENANT_INACTIVE' });
    expect(probe.capacity().write).toBe(1); // the refusal, on the key's day
    expect(await refusalsOf(key)).toEqual({ refused_authentication: 1 });
  });

  it('a revoked key, an expired key and a key of an inactive tenant: 403, no measurement, each refusal counted once on its key', async () => {
    const inactive = await createTestTenant({ active: false, kpiTypes: ['BSC_KPI'] });
    const revoked = await createRawKey(tenant.tenant.id);
    await revokeApiKey(
      db,
      tenant.tenant.id,
      (await getApiKeyByHash(db, hashApiKey(revoked)))!.id,
      undefined,
      publish,
    );
    const expired = await createRawKey(tenant.tenant.id, new Date(Date.now() - 1000).toISOString());
    const cases: [string, TestTenant][] = [
      [revoked, tenant],
      [expired, tenant],
      [await createRawKey(inactive.tenant.id), inactive],
    ];
    const { probe, deps } = setup(0);
    const before = await itemCount();
    for (const [key, owner] of cases) {
      for (let i = 0; i < 20; i++) {
        expect(
          await attempt(deps, {
            apiKey: key,
            input: Promise.resolve({ measurements: measurements(owner, 1, 2021) }),
          }),
        ).toBe(403);
      }
    }
    // One write unit per refusal, on the usage item of its key's day (one new item per key).
    expect(probe.capacity().write).toBe(60);
    expect(await itemCount()).toBe(before + cases.length);
    for (const [key] of cases) expect(await refusalsOf(key)).toEqual({ refused_authentication: 20 });
  });

  it('400, 404 and 429 of an authenticated key write its rate counter and its refusal by reason, and create no item', async () => {
    const owner = await createTestTenant({ plan: 'free', kpiTypes: ['BSC_KPI'] });
    const key = await createRawKey(owner.tenant.id);
    const id = (await getApiKeyByHash(db, hashApiKey(key)))!.id;
    const { probe, deps } = setup();
    const limited = {
      ...deps,
      rateLimits: { windowSeconds: 3600, perPlan: { ...RATE_LIMITS.perPlan, free: 3 } },
    };
    await pushMeasurements(limited, viaAuthorizer(key, id, measurements(owner, 1, 2022))); // the usage item exists
    const before = await itemCount();
    probe.reset();
    const [valid] = measurements(owner, 1, 2023);
    const foreign = viaAuthorizer(key, id, [{ ...valid!, kpiId: randomUUID() }]);
    const invalid = {
      ...viaAuthorizer(key, id, []),
      input: Promise.reject(new AppError('VALIDATION_FAILED', 'The request body is invalid.')),
    };
    expect(await attempt(limited, invalid)).toBe(400);
    expect(await attempt(limited, foreign)).toBe(404);
    expect(await attempt(limited, viaAuthorizer(key, id, [valid!]))).toBe(429);
    expect(probe.capacity().write).toBe(6); // the counter and the refusal of each request
    const writes = probe.calls.filter((c) => c.command !== 'BatchGetItemCommand');
    expect(writes.map((c) => c.command)).toEqual(Array(6).fill('UpdateItemCommand'));
    expect(new Set(writes.map((c) => c.input.Key?.sk))).toEqual(
      new Set([`USAGE#${new Date().toISOString().slice(0, 10)}`]),
    );
    expect(await itemCount()).toBe(before);
    // A KPI that is not the organization's answers 404 and counts as a validation refusal.
    expect(await refusalsOf(key)).toEqual({ refused_validation: 2, refused_rateLimit: 1 });
    expect(
      (await listMeasurements(db, valid!.kpiId, { limit: 10 })).items.map((m) => m.periodStart),
    ).not.toContain(valid!.periodStart);
  });
});

describe('push pipeline: a database failure midway through a batch', () => {
  it('answers with the failure, and retrying the same batch converges to exactly the intended state', async () => {
    const owner = await createTestTenant({ kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] });
    const key = await createRawKey(owner.tenant.id);
    const batch = measurements(owner, 50, 2015);
    // The second BatchWriteItem call (items 25..49) fails as DynamoDB throttling would.
    const failing = instrument(db, (command, nth) => {
      if (command.name === 'BatchWriteItemCommand' && nth === 1) {
        throw Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ThrottlingException',
        });
      }
      return undefined;
    });
    const deps = (database = db): PushDeps => ({
      db: database,
      tenants: createTenantCache({ ttlSeconds: 0, load: (id) => getTenant(db, id) }),
      rateLimits: RATE_LIMITS,
    });
    await expect(
      pushMeasurements(deps(failing.db), { apiKey: key, input: Promise.resolve({ measurements: batch }) }),
    ).rejects.toMatchObject({ name: 'ThrottlingException' });
    const partial = await Promise.all(owner.kpis.map((kpi) => listMeasurements(db, kpi.id, { limit: 1000 })));
    expect(partial.flatMap((page) => page.items).length).toBeLessThan(50);

    const retried = await pushMeasurements(deps(), {
      apiKey: key,
      input: Promise.resolve({ measurements: batch }),
    });
    expect(retried.items).toHaveLength(50);
    const stored = (
      await Promise.all(owner.kpis.map((kpi) => listMeasurements(db, kpi.id, { limit: 1000 })))
    ).flatMap((page) => page.items);
    expect(stored).toHaveLength(50);
    expect(stored.map((m) => m.actual).sort((a, b) => a - b)).toEqual(batch.map((m) => m.actual));
  });
});

describe('what a refused push says, and that it wrote nothing', () => {
  const refusal = (deps: PushDeps, request: PushRequest) =>
    pushMeasurements(deps, request).then(
      () => expect.fail('accepted'),
      (error: AppError) => error,
    );

  it('404 names each KPI that is not the tenant’s or not of that type, once, and the real type of the tenant’s', async () => {
    const { deps } = setup();
    const [kpi] = tenant.kpis as [TestTenant['kpis'][number]];
    const unknown = randomUUID();
    const body = [
      ...measurements(tenant, 1, 2030),
      { ...measurements(tenant, 1, 2031)[0]!, kpiId: unknown },
      { ...measurements(tenant, 1, 2032)[0]!, kpiId: unknown },
      {
        ...measurements(tenant, 1, 2033)[0]!,
        kpiId: kpi.id,
        kpiType: kpi.type === 'BSC_KPI' ? 'SWOT_KPI' : 'BSC_KPI',
      },
    ] as MeasurementInput[];
    const error = await refusal(deps, viaAuthorizer(apiKey, keyId, body));
    expect(error).toMatchObject({
      code: 'NOT_FOUND',
      message: `No KPI of this organization with the given id and kpiType: ${unknown}, ${kpi.id}. ${kpi.id} is a ${kpi.type}, not ${kpi.type === 'BSC_KPI' ? 'SWOT_KPI' : 'BSC_KPI'}.`,
      extensions: { missingKpiIds: [unknown, kpi.id] },
    });
    const first = body[0]!;
    const stored = await db.client.send(
      new GetCommand({
        TableName: db.tableName,
        Key: keys.measurement(first.kpiId, first.periodStart, first.periodEnd),
      }),
    );
    expect(stored.Item).toBeUndefined();
  });

  it('403 names the KPIs outside a scoped key, and how many it may push to', async () => {
    const { deps } = setup();
    const [first, second] = tenant.kpis as [TestTenant['kpis'][number], TestTenant['kpis'][number]];
    const scoped = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'scoped', kpiIds: [first.id] });
    const third = tenant.kpis[2]!;
    const body = [first, second, third].map((kpi) => ({
      ...measurements(tenant, 1, 2034)[0]!,
      kpiId: kpi.id,
      kpiType: kpi.type,
    })) as MeasurementInput[];
    const error = await refusal(deps, viaAuthorizer(scoped.key, scoped.id, body));
    expect(error).toMatchObject({
      code: 'KPI_OUTSIDE_KEY_SCOPE',
      message: `API key ${scoped.prefix}… may push only to its 1 KPI(s); not to ${second.id}, ${third.id}.`,
      extensions: { outOfScopeKpiIds: [second.id, third.id] },
    });
  });

  it('429 says the budget, the window, the plan and when to retry', async () => {
    const { deps } = setup();
    const owner = await createTestTenant({ plan: 'free', kpiTypes: ['BSC_KPI'] });
    const key = await createRawKey(owner.tenant.id);
    // One instant for both pushes: they share a window however slowly a loaded machine runs.
    const at = Date.now();
    const tight = {
      ...deps,
      rateLimits: { windowSeconds: 60, perPlan: { free: 1, business: 1, enterprise: 1 } },
      now: () => at,
    };
    await pushMeasurements(tight, {
      apiKey: key,
      input: Promise.resolve({ measurements: measurements(owner, 1, 2035) }),
    });
    const error = await refusal(tight, {
      apiKey: key,
      input: Promise.resolve({ measurements: measurements(owner, 1, 2036) }),
    });
    expect(error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(error.message).toBe(
      `This API key may make 1 push requests per 60 s on the free plan. Retry after ${error.headers['Retry-After']} s.`,
    );
    expect(Number(error.headers['Retry-After'])).toBeGreaterThan(0);
  });

  it('with less than 2 s of the invocation left, nothing is written: 503 with Retry-After', async () => {
    const { probe, deps } = setup();
    await pushMeasurements(deps, viaAuthorizer(apiKey, keyId, measurements(tenant, 1, 2037))); // warms the tenant
    probe.reset();
    for (const count of [1, 3]) {
      const body = measurements(tenant, count, 2038 + count);
      const error = await refusal(deps, {
        ...viaAuthorizer(apiKey, keyId, body),
        context: { getRemainingTimeInMillis: () => 1999 },
      });
      expect(error).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        message: 'The request ran out of time before it was written. Retry it.',
        headers: { 'Retry-After': '1' },
      });
      const written = probe.calls.filter((call) =>
        ['UpdateItemCommand', 'BatchWriteItemCommand', 'PutItemCommand'].includes(call.command),
      );
      // Only the rate counter (an UpdateItem on the day's usage item) was written: no refusal counted.
      expect(written.map((call) => call.input.Key?.sk)).toEqual([
        `USAGE#${new Date().toISOString().slice(0, 10)}`,
      ]);
      probe.reset();
    }
    const result = await pushMeasurements(deps, {
      ...viaAuthorizer(apiKey, keyId, measurements(tenant, 1, 2045)),
      context: { getRemainingTimeInMillis: () => 2000 },
    });
    expect(result.items.map((item) => item.status)).toEqual(['created']);
  });
});

describe('what the key checks say (spec 5.2 steps 1-3)', () => {
  const refused = (deps: PushDeps, key: string | undefined) =>
    pushMeasurements(deps, {
      apiKey: key,
      input: Promise.resolve({ measurements: measurements(tenant, 1, 2046) }),
    }).then(
      () => expect.fail('accepted'),
      (error: AppError) => error,
    );

  it('401: no key, a malformed one, an unknown one, each with its own detail and the ApiKey challenge', async () => {
    const { deps } = setup();
    for (const [key, message] of [
      [undefined, 'Send the API key in the x-api-key header.'],
      ['', 'Send the API key in the x-api-key header.'],
      ['skm_short', 'The API key is malformed.'],
      [generateApiKey(), 'The API key is not known. Check the x-api-key header.'],
    ] as const) {
      expect(await refused(deps, key)).toMatchObject({
        code: 'INVALID_API_KEY',
        message,
        headers: { 'WWW-Authenticate': 'ApiKey header="x-api-key"' },
      });
    }
  });

  it('403: a revoked or expired key by its prefix, an inactive organization, a plan without push', async () => {
    const { deps } = setup(0);
    const revoked = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'revoked' });
    await revokeApiKey(db, tenant.tenant.id, revoked.id, undefined, publish);
    expect(await refused(deps, revoked.key)).toMatchObject({
      code: 'API_KEY_REVOKED',
      message: `API key ${revoked.prefix}… has been revoked.`,
    });
    const expiresAt = new Date(Date.now() - 1000).toISOString();
    const expired = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'expired', expiresAt });
    expect(await refused(deps, expired.key)).toMatchObject({
      code: 'API_KEY_EXPIRED',
      message: `API key ${expired.prefix}… expired at ${expiresAt}.`,
    });
    const inactive = await createTestTenant({ active: false, kpiTypes: [] });
    expect(await refused(deps, await createRawKey(inactive.tenant.id))).toMatchObject({
      code: 'TENANT_INACTIVE',
      message: 'The organization of this API key is inactive.',
    });
    const pushless = await createTestTenant({ features: [], kpiTypes: [] });
    const error = await refused(deps, await createRawKey(pushless.tenant.id));
    expect(error).toMatchObject({
      code: 'FEATURE_NOT_ENABLED',
      message:
        'The plan of this organization does not include kpi_push_measurement. Upgrade the plan to push measurements; the key itself is fine.',
      extensions: { feature: 'kpi_push_measurement' },
    });
  });
});

describe('what a push logs and counts', () => {
  it('a push logs how many measurements it wrote and counts them; a dry run counts nothing', async () => {
    const { deps } = setup();
    const real = await captureOutput(() =>
      pushMeasurements(deps, viaAuthorizer(apiKey, keyId, measurements(tenant, 3, 2050))),
    );
    expect(real.lines).toContainEqual(
      expect.objectContaining({
        message: 'measurements pushed',
        tenantId: tenant.tenant.id,
        apiKeyId: keyId,
        count: 3,
      }),
    );
    expect(metricsOf(real.lines)).toEqual([
      expect.objectContaining({
        name: 'MeasurementsPushed',
        value: 3,
        dimensions: expect.objectContaining({ plan: 'business' }),
      }),
    ]);
    const dry = await captureOutput(() =>
      pushMeasurements(deps, {
        ...viaAuthorizer(apiKey, keyId, []),
        input: Promise.resolve({ measurements: measurements(tenant, 2, 2051), dryRun: true }),
      }),
    );
    expect(dry.result.dryRun).toBe(true);
    expect(metricsOf(dry.lines)).toEqual([]);
    expect(dry.lines.filter((line) => line.message === 'measurements pushed')).toEqual([]);
  });
});

describe('what a failed push counts', () => {
  it('a server failure is not a rejected push: no PushRejected metric; a refusal is one, by reason', async () => {
    const { deps } = setup();
    for (const failure of [
      new AppError('INTERNAL', 'broken'),
      new AppError('SERVICE_UNAVAILABLE', 'busy'),
      new Error('broken'),
    ]) {
      const { lines } = await captureOutput(() =>
        pushMeasurements(deps, {
          ...viaAuthorizer(apiKey, keyId, []),
          input: Promise.reject(failure),
        }).catch((error: unknown) => error),
      );
      expect(metricsOf(lines).filter((metric) => metric.name === 'PushRejected')).toEqual([]);
    }
    const refused = await captureOutput(() =>
      pushMeasurements(deps, {
        ...viaAuthorizer(apiKey, keyId, []),
        input: Promise.reject(new AppError('VALIDATION_FAILED', 'bad')),
      }).catch((error: unknown) => error),
    );
    expect(metricsOf(refused.lines)).toEqual([
      expect.objectContaining({
        name: 'PushRejected',
        dimensions: expect.objectContaining({ reason: 'validation-failed' }),
      }),
    ]);
  });
});
