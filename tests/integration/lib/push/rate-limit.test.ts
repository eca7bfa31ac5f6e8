import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { getTenant } from '../../../../lib/db/tenants';
import type { AppError } from '../../../../lib/errors';
import type { MeasurementInput } from '../../../../lib/push/measurement-schema';
import { type PushDeps, pushMeasurements } from '../../../../lib/push/push-service';
import { createTenantCache } from '../../../../lib/tenant-cache';
import { createRawKey, createTestTenant, db, type TestTenant } from '../../../support/fixtures';
import { measurementFor, pushOne, storedMeasurements } from '../../../support/push';

/** A clock the test moves, so windows are exact and nobody sleeps a minute. */
const clock = (start: number) => {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

const WINDOW = 60;
const LIMIT = 5;

const depsWith = (now: () => number): PushDeps => ({
  db,
  tenants: createTenantCache({ ttlSeconds: 0, load: (id) => getTenant(db, id) }),
  rateLimits: { windowSeconds: WINDOW, perPlan: { free: 2, business: 50, enterprise: LIMIT } },
  now,
});

let tenant: TestTenant;
let day = 0;
/** A fresh period per call, so every push is a distinct measurement. */
const one = (t: TestTenant = tenant): MeasurementInput[] => {
  day += 1;
  const date = new Date(Date.UTC(2000, 0, day)).toISOString().slice(0, 10);
  const kpi = t.kpis[0]!;
  return [
    {
      kpiId: kpi.id,
      kpiType: kpi.type,
      actual: day,
      target: undefined,
      forecast: undefined,
      periodStart: date,
      periodEnd: date,
    },
  ];
};

const attempt = (
  deps: PushDeps,
  apiKey: string,
  body: () => Promise<MeasurementInput[]> = async () => one(),
) =>
  pushMeasurements(deps, { apiKey, input: body().then((measurements) => ({ measurements })) }).then(
    (result) => ({ status: 200, headers: result.headers }),
    (error: AppError) => ({ status: error.status, headers: error.headers, code: error.code }),
  );

beforeAll(async () => {
  // Business-plan budgets (perPlan.business) but no key maximum: an enterprise tenant is given the
  // business budget below, so the test can create as many keys as it needs.
  tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI'], period: 'day' });
});

describe('push rate limit per API key', () => {
  it('admits the budget, refuses the next with 429 + Retry-After, admits again in a new window', async () => {
    const time = clock(Date.UTC(2030, 0, 1, 0, 0, 10));
    const deps = depsWith(time.now);
    const key = await createRawKey(tenant.tenant.id);
    const results = [];
    for (let i = 0; i <= LIMIT; i++) results.push(await attempt(deps, key));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(results.map((r) => r.headers['RateLimit-Remaining'])).toEqual(['4', '3', '2', '1', '0', '0']);
    expect(results.every((r) => r.headers['RateLimit-Limit'] === String(LIMIT))).toBe(true);
    const refused = results[LIMIT]!;
    expect(refused).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect(refused.headers['Retry-After']).toBe('50');
    expect(refused.headers['RateLimit-Reset']).toBe('50');

    time.advance(50_000);
    expect((await attempt(deps, key)).status).toBe(200);
  });

  it('a refused request writes no measurement', async () => {
    const time = clock(Date.UTC(2030, 0, 2));
    const deps = depsWith(time.now);
    const key = await createRawKey(tenant.tenant.id);
    for (let i = 0; i < LIMIT; i++) await attempt(deps, key);
    const body = one();
    expect((await attempt(deps, key, async () => body)).status).toBe(429);
    const period = (m: Record<string, unknown>) => m.periodStart === body[0]!.periodStart;
    expect((await storedMeasurements(tenant, body[0]!.kpiId)).filter(period)).toEqual([]);
    time.advance(WINDOW * 1000);
    const retried = await pushMeasurements(deps, {
      apiKey: key,
      input: Promise.resolve({ measurements: body }),
    });
    expect(retried.items[0]?.status).toBe('created');
  });

  it('two keys of the same tenant have separate budgets; the plan sets the budget', async () => {
    const time = clock(Date.UTC(2030, 0, 3));
    const deps = depsWith(time.now);
    const [a, b] = [await createRawKey(tenant.tenant.id), await createRawKey(tenant.tenant.id)];
    for (let i = 0; i < LIMIT; i++) await attempt(deps, a);
    expect((await attempt(deps, a)).status).toBe(429);
    expect((await attempt(deps, b)).headers['RateLimit-Remaining']).toBe(String(LIMIT - 1));

    const free = await createTestTenant({ plan: 'free', kpiTypes: ['BSC_KPI'], period: 'day' });
    const freeKey = await createRawKey(free.tenant.id);
    expect((await attempt(deps, freeKey, async () => one(free))).headers['RateLimit-Limit']).toBe('2');
  });

  it('concurrent requests never admit more than the budget (2× budget at once)', async () => {
    const time = clock(Date.UTC(2030, 0, 4));
    const deps = {
      ...depsWith(time.now),
      rateLimits: { windowSeconds: WINDOW, perPlan: { free: 1, business: 1, enterprise: 20 } },
    };
    const key = await createRawKey(tenant.tenant.id);
    const results = await Promise.all(Array.from({ length: 40 }, () => attempt(deps, key)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(20);
    expect(results.filter((r) => r.status === 429)).toHaveLength(20);
  });

  it('a request that started before its window ended and is counted after the next one began still counts in its own window', async () => {
    // Window A is full; a request of window B is counted; then requests that read their clock in A
    // reach the table: under load they arrive after B's first count. Each is counted on A's counter,
    // which B's count must not have removed, so A admits no more than the limit.
    const endOfA = Date.UTC(2030, 0, 7, 0, 1, 0);
    const key = await createRawKey(tenant.tenant.id);
    const inA = depsWith(() => endOfA - 1000);
    const inB = depsWith(() => endOfA + 1000);
    for (let i = 0; i < LIMIT; i++) expect((await attempt(inA, key)).status).toBe(200);
    expect((await attempt(inB, key)).headers['RateLimit-Remaining']).toBe(String(LIMIT - 1));
    const late = await attempt(inA, key);
    expect(late.status).toBe(429);
    expect(late.headers['RateLimit-Reset']).toBe('1');
  });

  it('a late request of the previous window removes nothing of the current one', async () => {
    // A request of window A, admitted after window B has been counted, must not clear B's counter as
    // stale: B would count from 1 again and admit twice its limit.
    const endOfA = Date.UTC(2030, 0, 8, 0, 1, 0);
    const key = await createRawKey(tenant.tenant.id);
    const inA = depsWith(() => endOfA - 1000);
    const inB = depsWith(() => endOfA + 1000);
    expect((await attempt(inA, key)).status).toBe(200);
    for (let i = 0; i < LIMIT; i++) expect((await attempt(inB, key)).status).toBe(200);
    expect((await attempt(inA, key)).status).toBe(200);
    expect((await attempt(inB, key)).status).toBe(429);
  });

  it('RateLimit-Reset counts from the instant the request was counted, however late the decision', async () => {
    // Counted 3 s before its window ends, decided 5 s after: the window it counted in ended 3 s after
    // it was counted, and the headers say so (not "1 s", which would point at the next window).
    const endOfA = Date.UTC(2030, 0, 9, 0, 1, 0);
    const key = await createRawKey(tenant.tenant.id);
    const times = [endOfA - 3000];
    const deps = depsWith(() => times.shift() ?? endOfA + 5000);
    const answer = await attempt(deps, key);
    expect(answer.status).toBe(200);
    expect(answer.headers['RateLimit-Reset']).toBe('3');
    expect(answer.headers['RateLimit-Remaining']).toBe(String(LIMIT - 1));
  });

  it('requests refused before authentication (401) consume no key budget', async () => {
    const time = clock(Date.UTC(2030, 0, 5));
    const deps = depsWith(time.now);
    const key = await createRawKey(tenant.tenant.id);
    for (const bad of [undefined, 'skm_nope', `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`]) {
      const result = await pushMeasurements(deps, {
        apiKey: bad,
        input: Promise.resolve({ measurements: one() }),
      }).catch((e) => e);
      expect(result.status).toBe(401);
      expect(result.headers['RateLimit-Limit']).toBeUndefined();
    }
    expect((await attempt(deps, key)).headers['RateLimit-Remaining']).toBe(String(LIMIT - 1));
  });

  it('4xx after authentication carries the RateLimit headers too', async () => {
    const time = clock(Date.UTC(2030, 0, 6));
    const deps = depsWith(time.now);
    const key = await createRawKey(tenant.tenant.id);
    const notFound = await attempt(deps, key, async () => [{ ...one()[0]!, kpiId: randomUUID() }]);
    expect(notFound.status).toBe(404);
    expect(notFound.headers['RateLimit-Remaining']).toBe(String(LIMIT - 1));
  });
});

describe('RateLimit headers through the handler (default limits: enterprise 3000/min)', () => {
  it('201 carries RateLimit-Limit/Remaining/Reset and Remaining decreases', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const first = await pushOne(
      key,
      measurementFor(tenant.kpis[0]!, { periodStart: '1999-01-01', periodEnd: '1999-01-01' }),
    );
    const second = await pushOne(key, measurementFor(tenant.kpis[0]!, { actual: 'x' }));
    expect(first.status).toBe(201);
    expect(first.headers['ratelimit-limit']).toBe('3000');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(first.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
    expect(second.status).toBe(400);
    // One less in the same window; if the two requests straddled a window edge, a fresh budget minus one.
    const newWindow = Number(second.headers['ratelimit-reset']) > Number(first.headers['ratelimit-reset']);
    expect(Number(second.headers['ratelimit-remaining'])).toBe(
      newWindow ? 3000 - 1 : Number(first.headers['ratelimit-remaining']) - 1,
    );
  });
});
