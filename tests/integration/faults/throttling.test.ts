import { beforeAll, describe, expect, it } from 'vitest';
import { handler as createKeyHandler } from '../../../functions/create-api-key';
import { handler as listKpisHandler } from '../../../functions/list-kpis';
import { handler as loginHandler } from '../../../functions/login';
import { handler as batchHandler } from '../../../functions/push-measurements-batch';
import { listMeasurements } from '../../../lib/db/measurements';
import { invoke } from '../../support/events';
import { injectFaults, throttling } from '../../support/faults';
import { bearer, createRawKey, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { monthlyMeasurements, pushBatch } from '../../support/push';

/**
 * Faults: DynamoDB throttling injected through a middleware on the client the handlers use.
 * Every endpoint answers 503 with Retry-After and no internal text, never 500; after recovery, sending
 * the same batch again converges to exactly the intended state.
 */
let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ kpiTypes: ['BSC_KPI', 'OKR_KEY_RESULT'] });
});

const expectUnavailable = (result: { status: number; headers: Record<string, string>; body: any }) => {
  expect(result.status).toBe(503);
  expect(result.headers['retry-after']).toBe('1');
  expect(result.headers['content-type']).toBe('application/problem+json');
  expect(result.body.type).toMatch(/\/service-unavailable$/);
  const text = JSON.stringify(result.body);
  expect(text).not.toMatch(/throughput|Throttling|dynamodb|\bat \w/i);
};

describe('DynamoDB throttling (faults)', () => {
  it('login, a read, a key creation and a push: 503 with Retry-After while every call is throttled', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const remove = injectFaults(db, () => throttling());
    try {
      expectUnavailable(
        await invoke(loginHandler, {
          method: 'POST',
          path: '/api/auth/login',
          body: { email: tenant.users.ADMIN.email, password: tenant.users.ADMIN.password },
        }),
      );
      expectUnavailable(
        await invoke(listKpisHandler, { path: '/api/kpis', headers: bearer(tenant.users.VIEWER.token) }),
      );
      expectUnavailable(
        await invoke(createKeyHandler, {
          method: 'POST',
          path: '/api/api-keys',
          headers: bearer(tenant.users.ADMIN.token),
          body: { name: 'throttled' },
        }),
      );
      expectUnavailable(await pushBatch(key, monthlyMeasurements(tenant.kpis, 3, 2040)));
    } finally {
      remove();
    }
  });

  it('a batch throttled between its two writes: 503; sent again after recovery it is exactly the batch', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const batch = monthlyMeasurements(tenant.kpis, 50, 2041);
    let writes = 0;
    // The second BatchWriteItem (items 25..49) is throttled: the first chunk is stored, the second not.
    const remove = injectFaults(db, (operation) =>
      operation === 'BatchWriteItemCommand' && ++writes === 2 ? throttling() : undefined,
    );
    try {
      expectUnavailable(
        await invoke(batchHandler, {
          method: 'POST',
          path: '/api/integrations/push/measurements/batch',
          headers: { 'x-api-key': key },
          body: { measurements: batch },
        }),
      );
    } finally {
      remove();
    }
    const storedNow = async () =>
      (await Promise.all(tenant.kpis.map((kpi) => listMeasurements(db, kpi.id, { limit: 1000 }))))
        .flatMap((page) => page.items)
        .filter((m) => m.periodStart >= '2041' && m.periodStart < '2046'); // 50 months from January 2041
    expect((await storedNow()).length).toBe(25);
    const retried = await pushBatch(key, batch);
    expect(retried.status).toBe(200);
    const stored = await storedNow();
    expect(stored).toHaveLength(50);
    expect(stored.map((m) => m.actual).sort((x, y) => x - y)).toEqual(batch.map((m) => m.actual));
    // The first chunk's records kept their identity: re-pushed, they report "updated".
    expect(retried.body.items.filter((item: { status: string }) => item.status === 'updated')).toHaveLength(
      25,
    );
  });
});
