import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../../../lib/db/api-keys';
import { GetCommand } from '../../../../lib/db/dynamo';
import { keys } from '../../../../lib/db/keys';
import { createTenant } from '../../../../lib/db/tenants';
import type { Plan } from '../../../../lib/domain';
import { injectFaults, throttling } from '../../../support/faults';
import { db } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

/**
 * The plan maximum of the key repository (spec 3, 8; lib/db/api-keys.ts): what holds a slot, the slots
 * item's version, and what happens when DynamoDB refuses the transaction that takes a slot.
 */
const tenantOn = (plan: Plan) =>
  createTenant(db, {
    name: `Tenant ${randomUUID()}`,
    plan,
    features: ['kpi_push_measurement'],
    active: true,
  });

const create = (tenantId: string, expiresAt?: string) =>
  createApiKey(db, { tenantId, name: `key ${randomUUID()}`, expiresAt });

const slotsItem = async (tenantId: string) =>
  (await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.apiKeySlots(tenantId) }))).Item;

/** DynamoDB's answer when a condition of the transaction failed (another writer got there first). */
const lostRace = () =>
  Object.assign(new Error('Transaction cancelled, please refer cancellation reasons for specific reasons'), {
    name: 'TransactionCanceledException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
  });

describe('plan maximum: which keys hold a slot', () => {
  it('a key that expires later holds its slot until then; an expired or revoked one frees it', async () => {
    const tenant = await tenantOn('free'); // 3 keys
    const inAYear = new Date(Date.now() + 365 * 86_400_000).toISOString();
    await create(tenant.id, inAYear);
    await create(tenant.id, inAYear);
    const third = await create(tenant.id);
    await expect(create(tenant.id)).rejects.toMatchObject({
      code: 'API_KEY_LIMIT_REACHED',
      extensions: { limit: 3, plan: 'free' },
    });

    // A revoked key and an expired one free their slots, without any write to free them.
    await revokeApiKey(db, tenant.id, third.id);
    await create(tenant.id, new Date(Date.now() - 1000).toISOString());
    await create(tenant.id);
    await expect(create(tenant.id)).rejects.toMatchObject({ code: 'API_KEY_LIMIT_REACHED' });
  });

  it('the slots item counts up one version per change, the condition every create is checked against', async () => {
    const tenant = await tenantOn('business');
    expect(await slotsItem(tenant.id)).toBeUndefined();
    const first = await create(tenant.id);
    expect(await slotsItem(tenant.id)).toMatchObject({
      version: 1,
      holders: { [first.id]: expect.any(String) },
    });
    const second = await create(tenant.id);
    expect(await slotsItem(tenant.id)).toMatchObject({
      version: 2,
      holders: { [first.id]: expect.any(String), [second.id]: expect.any(String) },
    });
  });

  it('an unlimited plan keeps no slots item: one PutItem per key', async () => {
    const tenant = await tenantOn('enterprise');
    const probe = instrument(db);
    await createApiKey(probe.db, { tenantId: tenant.id, name: 'k' });
    expect(probe.calls.map((call) => call.command)).toEqual(['BatchGetCommand', 'PutCommand']);
    expect(await slotsItem(tenant.id)).toBeUndefined();
  });
});

describe('plan maximum: when the transaction that takes a slot is refused', () => {
  const transactions = (tenantId: string, fault: () => Error) => {
    let count = 0;
    const remove = injectFaults(db, (operation, input) => {
      const forTenant = JSON.stringify(input).includes(tenantId);
      if (operation !== 'TransactWriteItemsCommand' || !forTenant) return undefined;
      count++;
      return fault();
    });
    return { count: () => count, remove };
  };

  it('a lost race is read again and retried, and gives up with 503 after 25 tries rather than looping', async () => {
    const tenant = await tenantOn('business');
    const injected = transactions(tenant.id, lostRace);
    try {
      await expect(create(tenant.id)).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        headers: { 'Retry-After': '1' },
      });
      expect(injected.count()).toBe(25);
    } finally {
      injected.remove();
    }
    expect(await slotsItem(tenant.id)).toBeUndefined();
  });

  it('any other refusal reaches the caller at once: not retried, not swallowed', async () => {
    const tenant = await tenantOn('business');
    for (const fault of [
      throttling,
      () =>
        Object.assign(new Error('One or more parameter values were invalid'), {
          name: 'ValidationException',
        }),
    ]) {
      const injected = transactions(tenant.id, fault);
      try {
        await expect(create(tenant.id)).rejects.toMatchObject({ name: fault().name });
        expect(injected.count()).toBe(1);
      } finally {
        injected.remove();
      }
    }
    expect(await slotsItem(tenant.id)).toBeUndefined();
  });
});
