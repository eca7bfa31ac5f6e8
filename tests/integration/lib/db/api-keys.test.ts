import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../../lib/api-keys/key-format';
import {
  createApiKey,
  listApiKeys,
  revokeApiKey,
  rollApiKey,
  updateApiKey,
} from '../../../../lib/api-keys/service';
import { recordUse } from '../../../../lib/db/api-key-usage';
import {
  findApiKey,
  getApiKeyByHash,
  putApiKey,
  putKeyRevocation,
  putRolledApiKey,
} from '../../../../lib/db/api-keys';
import { batchPut } from '../../../../lib/db/batch';
import { GSI1, keys } from '../../../../lib/db/keys';
import { createKpi } from '../../../../lib/db/kpis';
import { createTenant, updateTenant } from '../../../../lib/db/tenants';
import { createUser } from '../../../../lib/db/users';
import { auditEvent, systemContext } from '../../../../lib/domain/audit-event';
import type { Plan } from '../../../../lib/domain/plan';
import { uuidv7 } from '../../../../lib/ids';
import type { Publish } from '../../../../lib/webhooks/events';
import { cancelled, injectFaults, throttling } from '../../../support/faults';
import { db, publish } from '../../../support/fixtures';
import { instrument, overtaken } from '../../../support/instrumented-db';
import { captureOutput } from '../../../support/output';

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

/** An ADMIN of the tenant, to make and change keys in their name. */
const adminOf = (tenantId: string) =>
  createUser(db, {
    tenantId,
    email: `admin-${randomUUID()}@example.test`,
    role: 'ADMIN',
    passwordHash: 'scrypt$x',
  });

const create = (tenantId: string, expiresAt?: string) =>
  createApiKey(db, { tenantId, name: `key ${randomUUID()}`, expiresAt });

const slotsItem = async (tenantId: string) =>
  (await db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.apiKeySlots(tenantId) }))).Item;

/** A condition of the transaction failed: another writer got there first. */
const lostRace = () => cancelled('ConditionalCheckFailed', 'None');

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
    await revokeApiKey(db, tenant.id, third.id, undefined, publish);
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

  it('an unlimited plan keeps no slots item: one write per key, the key with its audit event', async () => {
    const tenant = await tenantOn('enterprise');
    const probe = instrument(db);
    await createApiKey(probe.db, { tenantId: tenant.id, name: 'k' });
    expect(probe.calls.map((call) => call.command)).toEqual([
      'BatchGetItemCommand',
      'TransactWriteItemsCommand',
    ]);
    expect(await slotsItem(tenant.id)).toBeUndefined();
  });
});

/**
 * Answers the tenant's transactions with `fault`, given how many came before (undefined sends it),
 * and counts them.
 */
const transactions = (tenantId: string, fault: (nth: number) => Error | undefined) => {
  let count = 0;
  const remove = injectFaults(db, (operation, input) => {
    const forTenant = JSON.stringify(input).includes(tenantId);
    if (operation !== 'TransactWriteItemsCommand' || !forTenant) return undefined;
    return fault(count++);
  });
  return { count: () => count, remove };
};

describe('plan maximum: when the transaction that takes a slot is refused', () => {
  it('a lost race is read again and retried, and gives up with 503 after 25 tries rather than looping', async () => {
    const tenant = await tenantOn('business');
    const injected = transactions(tenant.id, lostRace);
    try {
      await expect(create(tenant.id)).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        message: 'Too many concurrent key changes; retry.',
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
      // Cancelled, but not by a lost race: DynamoDB throttled one of the items.
      () => cancelled('None', 'ThrottlingError'),
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

/** The transaction collided with another one on the same items. */
const conflict = () => cancelled('None', 'TransactionConflict');

describe('rolling a key, at the repository', () => {
  it('refuses a grace period that is not 0 to 168 whole hours, before any read or write', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const probe = instrument(db);
    for (const gracePeriodHours of [-1, 1.5, 169, Number.NaN]) {
      await expect(
        rollApiKey(probe.db, { tenantId: tenant.id, keyId: key.id, gracePeriodHours }, publish),
      ).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'The grace period is invalid.',
        errors: [{ path: 'gracePeriodHours', message: 'must be a whole number of hours from 0 to 168' }],
      });
    }
    expect(probe.calls).toHaveLength(0);
    for (const gracePeriodHours of [0, 168]) {
      const fresh = await create(tenant.id);
      await expect(
        rollApiKey(db, { tenantId: tenant.id, keyId: fresh.id, gracePeriodHours }, publish),
      ).resolves.toBeDefined();
    }
  });

  it('without an actor records none: rolledBy stays null', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const rolled = await rollApiKey(db, { tenantId: tenant.id, keyId: key.id }, publish);
    expect(rolled.previous.rolledBy).toBeNull();
    const stored = await getApiKeyByHash(db, hashApiKey(rolled.created.key));
    expect(stored?.replaces).toEqual({ id: key.id, prefix: key.prefix });
    const old = (await listApiKeys(db, tenant.id, { limit: 10 })).items.find((item) => item.id === key.id);
    expect(old).toMatchObject({ rolledBy: null, replacedBy: { id: rolled.created.id } });
  });

  it('a key whose tenant record is gone is NOT_FOUND, naming the tenant', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.tenant(tenant.id) }));
    await expect(rollApiKey(db, { tenantId: tenant.id, keyId: key.id }, publish)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `Tenant ${tenant.id} not found.`,
    });
    await expect(create(tenant.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `Tenant ${tenant.id} not found.`,
    });
  });

  it('a transaction conflict is retried, and after 25 tries answered 503 rather than looping', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const always = transactions(tenant.id, conflict);
    try {
      await expect(rollApiKey(db, { tenantId: tenant.id, keyId: key.id }, publish)).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
      });
      expect(always.count()).toBe(25);
    } finally {
      always.remove();
    }
    const once = transactions(tenant.id, (nth) => (nth === 0 ? conflict() : undefined));
    try {
      const rolled = await rollApiKey(db, { tenantId: tenant.id, keyId: key.id }, publish);
      expect(rolled.previous.replacedBy?.id).toBe(rolled.created.id);
      expect(once.count()).toBe(2);
    } finally {
      once.remove();
    }
  });

  it('a conflict is tried again without reading the key item; any other refusal reaches the caller at once', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const conflicted = instrument(db, (command, nth) => {
      if (command.name === 'TransactWriteItemsCommand' && nth === 0) throw conflict();
      return undefined;
    });
    await rollApiKey(conflicted.db, { tenantId: tenant.id, keyId: key.id }, publish);
    const commands = conflicted.calls.map((call) => call.command);
    expect(commands.filter((command) => command === 'TransactWriteItemsCommand')).toHaveLength(2);
    expect(commands).not.toContain('GetItemCommand');

    const next = (await listApiKeys(db, tenant.id, { limit: 10 })).items.find((item) => !item.replacedBy)!;
    const refused = instrument(db, (command) => {
      if (command.name === 'TransactWriteItemsCommand')
        throw Object.assign(new Error('One or more parameter values were invalid'), {
          name: 'ValidationException',
        });
      return undefined;
    });
    await expect(
      rollApiKey(refused.db, { tenantId: tenant.id, keyId: next.id }, publish),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });
    expect(refused.calls.filter((call) => call.command === 'TransactWriteItemsCommand')).toHaveLength(1);
  });
});

describe('a key id of the tenant', () => {
  it("that is unknown, or another tenant's, is NOT_FOUND naming it, for revoke and roll", async () => {
    const tenant = await tenantOn('enterprise');
    const other = await tenantOn('enterprise');
    const foreign = await create(other.id);
    for (const keyId of [randomUUID(), foreign.id]) {
      const notFound = { code: 'NOT_FOUND', message: `API key ${keyId} not found.` };
      await expect(revokeApiKey(db, tenant.id, keyId, undefined, publish)).rejects.toMatchObject(notFound);
      await expect(rollApiKey(db, { tenantId: tenant.id, keyId }, publish)).rejects.toMatchObject(notFound);
    }
    expect((await listApiKeys(db, other.id, { limit: 10 })).items[0]).toMatchObject({
      revokedAt: null,
      replacedBy: null,
    });
  });

  it('rolled once cannot be rolled again: the answer names the key that replaced it', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const { created } = await rollApiKey(db, { tenantId: tenant.id, keyId: key.id }, publish);
    await expect(rollApiKey(db, { tenantId: tenant.id, keyId: key.id }, publish)).rejects.toMatchObject({
      code: 'API_KEY_ALREADY_ROLLED',
      message: `API key ${key.prefix}… was already rolled; it is replaced by ${created.prefix}… (id ${created.id}). Roll that key instead.`,
      extensions: { replacedBy: { id: created.id, prefix: created.prefix } },
    });
  });
});

describe('rolling a key the index shows stale', () => {
  /** The index answers as before a change (GSIs are eventually consistent on AWS). */
  const staleIndex = (patch: (item: Record<string, unknown>) => Record<string, unknown>) =>
    instrument(db, (command) =>
      command.name === 'QueryCommand'
        ? { patchResult: (result) => ({ ...result, Items: result.Items.map(patch) }) }
        : undefined,
    );

  it('revoked meanwhile: the key item itself says so, at once, instead of 25 retries', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    await revokeApiKey(db, tenant.id, key.id, undefined, publish);
    const probe = staleIndex(({ revokedAt: _, ...item }) => item);
    await expect(rollApiKey(probe.db, { tenantId: tenant.id, keyId: key.id }, publish)).rejects.toMatchObject(
      {
        code: 'API_KEY_NOT_ACTIVE',
        extensions: { keyStatus: 'revoked' },
      },
    );
    expect(probe.calls.filter((call) => call.command === 'TransactWriteItemsCommand')).toHaveLength(1);
  });

  it('rolled meanwhile: API_KEY_ALREADY_ROLLED naming the new key', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const { created } = await rollApiKey(db, { tenantId: tenant.id, keyId: key.id }, publish);
    const probe = staleIndex(({ replacedBy: _r, expiresAt: _e, ...item }) => item);
    await expect(rollApiKey(probe.db, { tenantId: tenant.id, keyId: key.id }, publish)).rejects.toMatchObject(
      {
        code: 'API_KEY_ALREADY_ROLLED',
        extensions: { replacedBy: { id: created.id } },
      },
    );
    expect(probe.calls.filter((call) => call.command === 'TransactWriteItemsCommand')).toHaveLength(1);
  });

  it('deleted meanwhile: NOT_FOUND at once, instead of 25 retries', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const { gsi1pk, gsi1sk } = keys.apiKeyIndex(tenant.id, key.id);
    const { Items: indexed } = await db.client.send(
      new QueryCommand({
        TableName: db.tableName,
        IndexName: GSI1,
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
        ExpressionAttributeValues: { ':pk': gsi1pk, ':sk': gsi1sk },
      }),
    );
    await db.client.send(
      new DeleteCommand({ TableName: db.tableName, Key: keys.apiKey(hashApiKey(key.key)) }),
    );
    const probe = instrument(db, (command) =>
      command.name === 'QueryCommand'
        ? { patchResult: (result) => ({ ...result, Items: indexed }) }
        : undefined,
    );
    await expect(rollApiKey(probe.db, { tenantId: tenant.id, keyId: key.id }, publish)).rejects.toMatchObject(
      {
        code: 'NOT_FOUND',
        message: `API key ${key.id} not found.`,
      },
    );
    expect(probe.calls.filter((call) => call.command === 'TransactWriteItemsCommand')).toHaveLength(1);
  });
});

describe('revoking a key', () => {
  it('revoked concurrently by someone else is the outcome asked for; any other refusal reaches the caller', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const refuse = (name: string) =>
      injectFaults(db, (operation, input) =>
        operation === 'TransactWriteItemsCommand' && JSON.stringify(input).includes(tenant.id)
          ? Object.assign(new Error(name), { name, $metadata: { httpStatusCode: 400 } })
          : undefined,
      );
    const remove = refuse('ValidationException');
    try {
      await expect(revokeApiKey(db, tenant.id, key.id, undefined, publish)).rejects.toMatchObject({
        name: 'ValidationException',
      });
    } finally {
      remove();
    }
    // Someone else revokes the key just before this revocation's write, whose condition then fails.
    const probe = overtaken(db, 'TransactWriteItemsCommand', () =>
      revokeApiKey(db, tenant.id, key.id, undefined, publish),
    );
    await expect(revokeApiKey(probe.db, tenant.id, key.id, undefined, publish)).resolves.toEqual({
      graceEnded: undefined,
      event: undefined,
    });
  });

  it('a revocation that keeps losing its race gives up with 503 after 25 tries rather than looping', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const injected = transactions(tenant.id, lostRace);
    try {
      await expect(revokeApiKey(db, tenant.id, key.id, undefined, publish)).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
      });
    } finally {
      injected.remove();
    }
    expect(injected.count()).toBe(25);
    expect((await findApiKey(db, tenant.id, key.id))?.key.revokedAt).toBeNull();
  });

  it('a key deleted after a lost race is NOT_FOUND, naming it', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const probe = overtaken(db, 'TransactWriteItemsCommand', () =>
      db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.apiKey(hashApiKey(key.key)) })),
    );
    await expect(revokeApiKey(probe.db, tenant.id, key.id, undefined, publish)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `API key ${key.id} not found.`,
    });
  });

  /** A key rolled with a grace period: the old one works on, and the new one replaces it. */
  const rolledPair = async () => {
    const tenant = await tenantOn('enterprise');
    const old = await create(tenant.id);
    const rolled = await rollApiKey(
      db,
      { tenantId: tenant.id, keyId: old.id, gracePeriodHours: 24 },
      publish,
    );
    return { tenant, old, rolled };
  };
  const recording = () => {
    const published: Parameters<Publish>[0][] = [];
    const record: Publish = async (event) => {
      published.push(event);
    };
    return { published, record };
  };

  it('the replacement revoked after a lost race still ends the grace period of the key it replaced', async () => {
    const { tenant, old, rolled } = await rolledPair();
    const once = transactions(tenant.id, (nth) => (nth === 0 ? lostRace() : undefined));
    try {
      const revocation = await revokeApiKey(db, tenant.id, rolled.created.id, undefined, publish);
      expect(revocation.graceEnded).toEqual({ id: old.id, prefix: old.prefix });
      expect(revocation.event?.details).toMatchObject({ revoked: true, graceEndedOf: old.id });
    } finally {
      once.remove();
    }
    expect(once.count()).toBe(2);
    const ended = (await findApiKey(db, tenant.id, old.id))?.key;
    expect(Date.parse(ended?.expiresAt as string)).toBeLessThanOrEqual(Date.now());
  });

  it('a revocation left half done (the replacement revoked, the old key in grace) is finished, and announced no second time', async () => {
    const { tenant, old, rolled } = await rolledPair();
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.apiKey(hashApiKey(rolled.created.key)),
        UpdateExpression: 'SET revokedAt = :at',
        ExpressionAttributeValues: { ':at': new Date().toISOString() },
      }),
    );
    const { published, record } = recording();
    const revocation = await revokeApiKey(db, tenant.id, rolled.created.id, undefined, record);
    expect(revocation.graceEnded).toEqual({ id: old.id, prefix: old.prefix });
    expect(revocation.event?.details).toMatchObject({ revoked: false, graceEndedOf: old.id });
    expect(published).toEqual([]);
  });

  it('a key already revoked is left as it is, without a write', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    await revokeApiKey(db, tenant.id, key.id, undefined, publish);
    const probe = instrument(db);
    await revokeApiKey(probe.db, tenant.id, key.id, undefined, publish);
    expect(probe.calls.map((call) => call.command)).toEqual(['QueryCommand']);
  });
});

describe('listing keys', () => {
  it('gives a cursor while more keys follow, and none on the last page', async () => {
    const tenant = await tenantOn('enterprise');
    const first = await create(tenant.id);
    const second = await create(tenant.id);
    const page1 = await listApiKeys(db, tenant.id, { limit: 1 });
    expect(page1.items.map((item) => item.id)).toEqual([first.id]);
    expect(page1.nextCursor).toEqual(expect.any(String));
    expect(page1.plan).toMatchObject({ name: 'enterprise', apiKeyLimit: null });
    const page2 = await listApiKeys(db, tenant.id, { limit: 5, cursor: page1.nextCursor });
    expect(page2.items.map((item) => item.id)).toEqual([second.id]);
    expect(page2).not.toHaveProperty('nextCursor');
  });
});

describe('plan maximum: the first slots item', () => {
  it('is made only where none exists: a create that raced another one reads again and counts both', async () => {
    const tenant = await tenantOn('free');
    // The other create runs between this one's read (no slots item yet) and its write.
    let raced = false;
    const racing = instrument(db, async (command) => {
      if (!raced && command.name === 'TransactWriteItemsCommand') {
        raced = true;
        await create(tenant.id);
      }
      return undefined;
    }).db;
    await createApiKey(racing, { tenantId: tenant.id, name: 'second' });
    expect(await slotsItem(tenant.id)).toMatchObject({ version: 2 });
    expect(Object.keys((await slotsItem(tenant.id))?.holders ?? {})).toHaveLength(2);
  });

  it('rebuilt from the index counts the active keys of every page, past 1000 revoked ones', async () => {
    const tenant = await tenantOn('enterprise'); // unlimited: no slots item is kept
    const template = await create(tenant.id);
    await revokeApiKey(db, tenant.id, template.id, undefined, publish);
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.apiKey(hashApiKey(template.key)) }),
    );
    const revoked = Array.from({ length: 1000 }, (_, i) => {
      const id = uuidv7(Date.now() - 1000 + i);
      const hash = `${i}`.padStart(64, 'f');
      return { ...Item, ...keys.apiKey(hash), ...keys.apiKeyIndex(tenant.id, id), id };
    });
    await batchPut(db, revoked);
    for (let i = 0; i < 3; i++) await create(tenant.id);
    await updateTenant(db, tenant.id, { plan: 'free' }); // 3 keys; the index is read from the start
    await expect(create(tenant.id)).rejects.toMatchObject({ code: 'API_KEY_LIMIT_REACHED' });
  });
});

describe('plan maximum: slots of keys that are gone, and a slots item rebuilt', () => {
  it('a holder whose key item is gone frees its slot', async () => {
    const tenant = await tenantOn('free'); // 3 keys
    const keysMade = [await create(tenant.id), await create(tenant.id), await create(tenant.id)];
    await db.client.send(
      new DeleteCommand({ TableName: db.tableName, Key: keys.apiKey(hashApiKey(keysMade[0]!.key)) }),
    );
    await expect(create(tenant.id)).resolves.toMatchObject({ tenantId: tenant.id });
  });

  it('without a slots item, only active keys from the index hold a slot: no read of their key items', async () => {
    const tenant = await tenantOn('enterprise');
    await create(tenant.id);
    const revoked = await create(tenant.id);
    await revokeApiKey(db, tenant.id, revoked.id, undefined, publish);
    await updateTenant(db, tenant.id, { plan: 'free' }); // drops the slots item (there is none on enterprise)
    const probe = instrument(db);
    await createApiKey(probe.db, { tenantId: tenant.id, name: 'third' });
    expect(probe.calls.map((call) => call.command)).toEqual([
      'BatchGetItemCommand',
      'QueryCommand',
      'TransactWriteItemsCommand',
    ]);
    expect(Object.keys((await slotsItem(tenant.id))?.holders ?? {})).toHaveLength(2);
  });
});

describe('who made and changed a key, as stored and listed', () => {
  it('stores a user by id and lists them with their e-mail; an operator by name', async () => {
    const tenant = await tenantOn('enterprise');
    const admin = await adminOf(tenant.id);
    const byUser = await createApiKey(db, {
      tenantId: tenant.id,
      name: 'by user',
      createdBy: { type: 'user', userId: admin.id, email: 'stale@example.test' },
    });
    const byOperator = await createApiKey(db, {
      tenantId: tenant.id,
      name: 'by operator',
      createdBy: { type: 'operator', name: 'ops-alice' },
    });
    await revokeApiKey(db, tenant.id, byOperator.id, { type: 'user', userId: admin.id }, publish);
    const stored = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.apiKey(hashApiKey(byUser.key)) }),
    );
    expect(stored.Item).toMatchObject({ type: 'APIKEY', createdBy: { type: 'user', userId: admin.id } });
    const listed = (await listApiKeys(db, tenant.id, { limit: 10 })).items;
    expect(listed.find((key) => key.id === byUser.id)?.createdBy).toEqual({
      type: 'user',
      userId: admin.id,
      email: admin.email,
    });
    expect(listed.find((key) => key.id === byOperator.id)).toMatchObject({
      createdBy: { type: 'operator', name: 'ops-alice' },
      revokedBy: { type: 'user', userId: admin.id, email: admin.email },
    });
  });
});

describe('the audit event of a new key', () => {
  it('names its sources in one field, space-separated, or null for any address', async () => {
    const tenant = await tenantOn('enterprise');
    const { lines } = await captureOutput(async () => {
      await createApiKey(db, {
        tenantId: tenant.id,
        name: 'fenced',
        allowedSources: ['203.0.113.0/24', '198.51.100.7/32'],
      });
      await createApiKey(db, { tenantId: tenant.id, name: 'open' });
    });
    expect(
      lines.filter((line) => line.audit === 'api_key.created').map((line) => line.allowedSources),
    ).toEqual(['203.0.113.0/24 198.51.100.7/32', undefined]);
  });
});

describe('listing keys made by operators', () => {
  it('reads no user: one batch read holds only the tenant', async () => {
    const tenant = await tenantOn('enterprise');
    await createApiKey(db, {
      tenantId: tenant.id,
      name: 'ops',
      createdBy: { type: 'operator', name: 'ops' },
    });
    const probe = instrument(db);
    const listed = await listApiKeys(probe.db, tenant.id, { limit: 10 });
    expect(listed.items[0]?.createdBy).toEqual({ type: 'operator', name: 'ops' });
    const reads = probe.calls.filter((call) => call.command === 'BatchGetItemCommand');
    const keysRead = reads.map(
      (call) => Object.values(call.input.RequestItems as Record<string, { Keys: unknown[] }>)[0]?.Keys,
    );
    expect(keysRead).toContainEqual([keys.tenant(tenant.id)]);
  });
});

describe('a KPI scope at the repository', () => {
  it("names each KPI that is not the tenant's, and writes nothing", async () => {
    const tenant = await tenantOn('enterprise');
    const other = await tenantOn('enterprise');
    const own = await createKpi(db, tenant.id, { type: 'OKR_KEY_RESULT', name: 'own' });
    const foreign = await createKpi(db, other.id, { type: 'OKR_KEY_RESULT', name: 'foreign' });
    const missing = randomUUID();
    await expect(
      createApiKey(db, { tenantId: tenant.id, name: 'scoped', kpiIds: [own.id, foreign.id, missing] }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: '2 of the kpiIds are not KPIs of this organization.',
      errors: [
        { path: 'kpiIds[1]', message: `No KPI of this organization has the id ${foreign.id}.` },
        { path: 'kpiIds[2]', message: `No KPI of this organization has the id ${missing}.` },
      ],
    });
    expect((await listApiKeys(db, tenant.id, { limit: 10 })).items).toEqual([]);
  });

  it('an unscoped key reads no KPI: one batch read of the tenant and its slots item', async () => {
    const tenant = await tenantOn('business');
    const probe = instrument(db);
    await createApiKey(probe.db, { tenantId: tenant.id, name: 'unscoped' });
    const [read] = probe.calls.filter((call) => call.command === 'BatchGetItemCommand');
    expect(read?.input.RequestItems[db.tableName].Keys).toEqual([
      keys.tenant(tenant.id),
      keys.apiKeySlots(tenant.id),
    ]);
  });

  it('a malformed scope fails before any read', async () => {
    const tenant = await tenantOn('enterprise');
    const probe = instrument(db);
    for (const kpiIds of [[], ['not-a-uuid']]) {
      await expect(createApiKey(probe.db, { tenantId: tenant.id, name: 'scoped', kpiIds })).rejects.toThrow(
        RangeError,
      );
    }
    expect(probe.calls).toHaveLength(0);
  });
});

describe('changing a key, at the repository', () => {
  it('a key revoked between the read and the write is API_KEY_NOT_ACTIVE, and keeps its name', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const probe = overtaken(db, 'TransactWriteItemsCommand', () =>
      revokeApiKey(db, tenant.id, key.id, undefined, publish),
    );
    await expect(
      updateApiKey(probe.db, { tenantId: tenant.id, keyId: key.id, changes: { name: 'renamed' } }),
    ).rejects.toMatchObject({ code: 'API_KEY_NOT_ACTIVE', extensions: { keyStatus: 'revoked' } });
    expect((await findApiKey(db, tenant.id, key.id))?.key.name).toBe(key.name);
  });

  it('a key deleted between the read and the write is NOT_FOUND, naming it', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const probe = overtaken(db, 'TransactWriteItemsCommand', () =>
      db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.apiKey(hashApiKey(key.key)) })),
    );
    await expect(
      updateApiKey(probe.db, { tenantId: tenant.id, keyId: key.id, changes: { name: 'renamed' } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: `API key ${key.id} not found.` });
  });

  it('answers the key as the list shows it: who made it, with their e-mail, and its last use', async () => {
    const tenant = await tenantOn('enterprise');
    const admin = await adminOf(tenant.id);
    const key = await createApiKey(db, {
      tenantId: tenant.id,
      name: 'used',
      createdBy: { type: 'user', userId: admin.id },
    });
    const at = new Date().toISOString();
    await recordUse(db, hashApiKey(key.key), { day: at.slice(0, 10), at, measurements: 1, staleWindows: [] });
    const changed = await updateApiKey(db, {
      tenantId: tenant.id,
      keyId: key.id,
      changes: { name: 'renamed' },
    });
    expect(changed).toMatchObject({
      name: 'renamed',
      createdBy: { type: 'user', userId: admin.id, email: admin.email },
      lastUsedAt: at,
    });
  });

  it('renames, sets or clears the sources, each alone, and the stored key reads back as changed', async () => {
    const tenant = await tenantOn('enterprise');
    const key = await create(tenant.id);
    const stored = () => findApiKey(db, tenant.id, key.id);
    await updateApiKey(db, {
      tenantId: tenant.id,
      keyId: key.id,
      changes: { allowedSources: ['10.0.0.0/8'] },
    });
    expect((await stored())?.key).toMatchObject({ name: key.name, allowedSources: ['10.0.0.0/8'] });
    await updateApiKey(db, { tenantId: tenant.id, keyId: key.id, changes: { name: 'renamed' } });
    expect((await stored())?.key).toMatchObject({ name: 'renamed', allowedSources: ['10.0.0.0/8'] });
    await updateApiKey(db, { tenantId: tenant.id, keyId: key.id, changes: { allowedSources: null } });
    expect((await stored())?.key).toMatchObject({ name: 'renamed', allowedSources: null });
  });
});

const caught = (write: Promise<unknown>) =>
  write.then(
    () => expect.unreachable('written'),
    (error: unknown) => error,
  );
const keyEventOf = (tenantId: string) =>
  auditEvent(systemContext('test'), {
    type: 'api_key.created',
    tenantId,
    target: { type: 'api_key', id: 'k' },
  });

describe('a write that lost a race', () => {
  it('is a WriteConflict naming what changed, with DynamoDB’s refusal as its cause', async () => {
    const limited = await tenantOn('free');
    const slotsLost = instrument(db, (command) => {
      if (command.name === 'TransactWriteItemsCommand') throw lostRace();
      return undefined;
    });
    const first = await createApiKey(db, { tenantId: limited.id, name: 'first' });
    const stored = (await findApiKey(db, limited.id, first.id))!;
    const list = { exists: true, version: 1, holders: {} };
    // A new key on a plan with a maximum: the slot list changed meanwhile.
    const conflict = await caught(
      putApiKey(slotsLost.db, stored, keyEventOf(limited.id), {
        list,
        holders: { [first.id]: stored.keyHash },
      }),
    );
    expect(conflict).toMatchObject({
      name: 'WriteConflict',
      on: 'slots',
      message: 'A concurrent change of the slot list won.',
      cause: { name: 'TransactionCanceledException' },
    });
    // A revocation whose key changed meanwhile.
    const revoked = await caught(
      putKeyRevocation(
        slotsLost.db,
        { at: new Date().toISOString(), revoke: { stored, by: undefined } },
        keyEventOf(limited.id),
      ),
    );
    expect(revoked).toMatchObject({
      name: 'WriteConflict',
      on: 'key',
      message: 'A concurrent change of the key won.',
      cause: { name: 'TransactionCanceledException' },
    });
    // A roll: the old key changed meanwhile (the first item's condition), or else the slot list.
    const roll = (reasons: string[]) =>
      caught(
        putRolledApiKey(
          instrument(db, (command) => {
            if (command.name === 'TransactWriteItemsCommand') throw cancelled(...reasons);
            return undefined;
          }).db,
          {
            old: stored,
            expiresAt: new Date().toISOString(),
            replacedBy: { id: uuidv7(), prefix: stored.key.prefix },
            rolledAt: new Date().toISOString(),
            rolledBy: undefined,
            created: stored,
            slots: { list, holders: {} },
          },
          keyEventOf(limited.id),
        ),
      );
    expect(await roll(['ConditionalCheckFailed', 'None', 'None', 'None'])).toMatchObject({
      name: 'WriteConflict',
      on: 'key',
      cause: { name: 'TransactionCanceledException' },
    });
    expect(await roll(['None', 'None', 'ConditionalCheckFailed', 'None'])).toMatchObject({
      name: 'WriteConflict',
      on: 'slots',
      cause: { name: 'TransactionCanceledException' },
    });
  });
});
