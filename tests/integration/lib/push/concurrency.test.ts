import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, listApiKeys, revokeApiKey } from '../../../../lib/api-keys/service';
import { listMeasurements } from '../../../../lib/db/measurements';
import { getTenant } from '../../../../lib/db/tenants';
import type { Measurement } from '../../../../lib/domain/measurement';
import { AppError } from '../../../../lib/errors';
import type { MeasurementInput } from '../../../../lib/push/measurement-schema';
import { type PushDeps, pushMeasurements } from '../../../../lib/push/push-service';
import { createTenantCache } from '../../../../lib/tenant-cache';
import { createTestTenant, db, publish, type TestTenant } from '../../../support/fixtures';

/**
 * 200 pushes at once across 5 keys and 2 tenants, in-process against DynamoDB Local. Every
 * 2xx is stored exactly once, every rejection stores nothing, and the counts add up. The clock is fixed,
 * so all requests fall into one rate-limit window.
 */
const LIMIT = 30;
const NOW = Date.UTC(2031, 5, 1, 12, 0, 5);

let a: TestTenant;
let b: TestTenant;
beforeAll(async () => {
  a = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'], period: 'day' });
  b = await createTestTenant({ plan: 'enterprise', kpiTypes: ['SWOT_KPI'], period: 'day' });
});

const deps = (): PushDeps => ({
  db,
  tenants: createTenantCache({ ttlSeconds: 30, load: (id) => getTenant(db, id) }),
  rateLimits: { windowSeconds: 60, perPlan: { free: LIMIT, business: LIMIT, enterprise: LIMIT } },
  now: () => NOW,
});

/** A measurement on its own day of 2030 (day n), so every request's identity is distinct. */
const on = (tenant: TestTenant, n: number, overrides: Partial<MeasurementInput> = {}): MeasurementInput => {
  const date = new Date(Date.UTC(2030, 0, 1 + n)).toISOString().slice(0, 10);
  const kpi = tenant.kpis[n % tenant.kpis.length]!;
  return {
    kpiId: kpi.id,
    kpiType: kpi.type,
    actual: n,
    target: undefined,
    forecast: undefined,
    periodStart: date,
    periodEnd: date,
    ...overrides,
  };
};

interface Attempt {
  key: string;
  measurements: MeasurementInput[];
  /** Refused by validation before the pipeline (what the schema would answer 400 to). */
  invalid?: boolean;
}

describe('200 concurrent pushes across 5 keys and 2 tenants', () => {
  it('stores every 2xx exactly once, nothing of a rejection, and the counts add up', async () => {
    const keys = await Promise.all([
      createApiKey(db, { tenantId: a.tenant.id, name: 'flood' }),
      createApiKey(db, { tenantId: a.tenant.id, name: 'mixed' }),
      createApiKey(db, { tenantId: a.tenant.id, name: 'batches' }),
      createApiKey(db, { tenantId: b.tenant.id, name: 'same period' }),
      createApiKey(db, { tenantId: b.tenant.id, name: 'revoked' }),
    ]);
    await revokeApiKey(db, b.tenant.id, keys[4].id, undefined, publish);
    const [flood, mixed, batches, samePeriod, revoked] = keys;

    const attempts: Attempt[] = [
      // 50 valid pushes on one key: exactly LIMIT admitted, the rest 429.
      ...Array.from({ length: 50 }, (_, i) => ({ key: flood.key, measurements: [on(a, i)] })),
      // 20 valid, 10 invalid (400), 10 to the other tenant's KPI (404).
      ...Array.from({ length: 20 }, (_, i) => ({ key: mixed.key, measurements: [on(a, 100 + i)] })),
      ...Array.from({ length: 10 }, (_, i) => ({
        key: mixed.key,
        measurements: [on(a, 120 + i)],
        invalid: true,
      })),
      ...Array.from({ length: 10 }, (_, i) => ({ key: mixed.key, measurements: [on(b, 130 + i, {})] })),
      // 30 batches of 3.
      ...Array.from({ length: 30 }, (_, i) => ({
        key: batches.key,
        measurements: [0, 1, 2].map((j) => on(a, 200 + i * 3 + j)),
      })),
      // 20 pushes of one KPI and period with different values, and 20 of their own periods.
      ...Array.from({ length: 20 }, (_, i) => ({
        key: samePeriod.key,
        measurements: [on(b, 400, { actual: i })],
      })),
      ...Array.from({ length: 20 }, (_, i) => ({ key: samePeriod.key, measurements: [on(b, 500 + i)] })),
      // 40 with a revoked key.
      ...Array.from({ length: 40 }, (_, i) => ({ key: revoked.key, measurements: [on(b, 600 + i)] })),
    ];
    expect(attempts).toHaveLength(200);

    const ids = new Map(keys.map((key) => [key.key, key.id]));
    const results = await Promise.all(
      attempts.map((attempt) =>
        pushMeasurements(deps(), {
          apiKey: attempt.key,
          authorizer: {
            keyId: ids.get(attempt.key)!,
            status: attempt.key === revoked.key ? 'refused' : 'active',
          },
          input: attempt.invalid
            ? Promise.reject(new AppError('VALIDATION_FAILED', 'actual must be a finite number'))
            : Promise.resolve({ measurements: attempt.measurements }),
        }).then(
          (result) => ({ attempt, status: 200, items: result.items }),
          (error: AppError) => ({ attempt, status: error.status, items: [] }),
        ),
      ),
    );

    const byKey = (key: string) => results.filter((r) => r.attempt.key === key);
    const statuses = (key: string) => byKey(key).map((r) => r.status);
    const count = (list: number[], status: number) => list.filter((s) => s === status).length;

    // The counts add up, per key.
    expect(count(statuses(flood.key), 200)).toBe(LIMIT);
    expect(count(statuses(flood.key), 429)).toBe(50 - LIMIT);
    // Every request counts before its body is judged: 10 of the 40 are over the limit, whatever they hold.
    expect(count(statuses(mixed.key), 429)).toBe(40 - LIMIT);
    for (const { attempt, status } of byKey(mixed.key)) {
      const foreign = attempt.measurements[0]!.kpiId === b.kpis[0]!.id;
      expect([attempt.invalid ? 400 : foreign ? 404 : 200, 429]).toContain(status);
    }
    expect(count(statuses(batches.key), 200)).toBe(LIMIT);
    expect(statuses(samePeriod.key).every((s) => s === 200 || s === 429)).toBe(true);
    expect(count(statuses(samePeriod.key), 200)).toBe(LIMIT);
    expect(statuses(revoked.key)).toEqual(Array(40).fill(403));
    expect(results.filter((r) => r.status >= 500)).toEqual([]);

    // What is stored is exactly what the 2xx answers said, each identity once.
    const stored = (
      await Promise.all(
        [...a.kpis, ...b.kpis].map((kpi) =>
          listMeasurements(db, kpi.id, { limit: 1000 }).then((page) => page.items),
        ),
      )
    ).flat();
    const identity = (m: Pick<Measurement, 'kpiId' | 'periodStart' | 'periodEnd'>) =>
      `${m.kpiId}|${m.periodStart}|${m.periodEnd}`;
    expect(new Set(stored.map(identity)).size).toBe(stored.length);
    const accepted = results.filter((r) => r.status === 200).flatMap((r) => r.items);
    expect(new Set(stored.map(identity))).toEqual(
      new Set(accepted.map((item) => identity(item.measurement))),
    );
    for (const rejected of results.filter((r) => r.status !== 200)) {
      for (const m of rejected.attempt.measurements) {
        if (identity(m) === identity(on(b, 400))) continue; // the shared period, stored by the admitted ones
        expect(stored.map(identity)).not.toContain(identity(m));
      }
    }
    // The shared period: one record, created once, the others updated it; its values are one of theirs.
    const shared = accepted.filter((item) => identity(item.measurement) === identity(on(b, 400)));
    expect(shared.filter((item) => item.status === 'created')).toHaveLength(1);
    expect(new Set(shared.map((item) => item.measurement.id)).size).toBe(1);
    const record = stored.find((m) => identity(m) === identity(on(b, 400)))!;
    expect(shared.map((item) => item.measurement.actual)).toContain(record.actual);

    // lastUsedAt for every key that pushed, none for the revoked one.
    const listed = [
      ...(await listApiKeys(db, a.tenant.id, { limit: 100 }, NOW)).items,
      ...(await listApiKeys(db, b.tenant.id, { limit: 100 }, NOW)).items,
    ];
    const lastUsed = (id: string) => listed.find((k) => k.id === id)?.lastUsedAt;
    for (const key of [flood, mixed, batches, samePeriod])
      expect(lastUsed(key.id)).toEqual(expect.any(String));
    expect(lastUsed(revoked.id)).toBeNull();
  }, 300_000);
});
