import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../../../lib/api-keys/service';
import { keys } from '../../../../lib/db/keys';
import { createKpi } from '../../../../lib/db/kpis';
import { createStrategicCycle } from '../../../../lib/db/strategic-cycles';
import { createTenant, getTenant, listTenants, updateTenant } from '../../../../lib/db/tenants';
import {
  createUser,
  findUserByEmail,
  getUser,
  getUserWithTenant,
  listUsers,
  putUserChange,
  updateUser,
} from '../../../../lib/db/users';
import { auditEvent, systemContext } from '../../../../lib/domain/audit-event';
import { injectFaults } from '../../../support/faults';
import { db } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

/**
 * The repositories the operator CLI (scripts/admin.ts) lists and creates with: tested here in-process,
 * where a mutant of lib/db is active (the CLI's own tests run it as a separate process).
 */
const tenant = (name = `Tenant ${randomUUID()}`) =>
  createTenant(db, { name, plan: 'free', features: [], active: true });

const user = (tenantId: string, email = `u-${randomUUID()}@example.test`) =>
  createUser(db, { tenantId, email, role: 'VIEWER', passwordHash: 'scrypt$x' });

describe('tenants', () => {
  it('lists every tenant through the index, a page at a time, each as stored', async () => {
    const created = [await tenant('A'), await tenant('B'), await tenant('C')];
    const first = await listTenants(db, { limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listTenants(db, { limit: 2, cursor: first.nextCursor });
    const all = [...first.items, ...second.items];
    for (const made of created) expect(all).toContainEqual(made);
    expect(new Set(all.map((t) => t.id)).size).toBe(all.length);
  });

  it('changes plan, features and state, and answers the tenant as it is now', async () => {
    const made = await tenant();
    expect(await updateTenant(db, made.id, { name: 'Renamed', active: false })).toMatchObject({
      id: made.id,
      name: 'Renamed',
      plan: 'free',
      active: false,
    });
    expect(await updateTenant(db, made.id, { plan: 'business', features: ['kpi_push_measurement'] })).toEqual(
      await getTenant(db, made.id),
    );
    expect(await getTenant(db, made.id)).toMatchObject({
      name: 'Renamed',
      plan: 'business',
      features: ['kpi_push_measurement'],
      active: false,
    });
  });

  it('a plan change drops the slots item, so the new maximum counts afresh; other changes keep it', async () => {
    const made = await tenant();
    await createApiKey(db, { tenantId: made.id, name: 'k' });
    const slots = () =>
      db.client.send(new GetCommand({ TableName: db.tableName, Key: keys.apiKeySlots(made.id) }));
    expect((await slots()).Item).toBeDefined();
    await updateTenant(db, made.id, { name: 'Renamed', active: true });
    expect((await slots()).Item).toBeDefined();
    await updateTenant(db, made.id, { plan: 'business' });
    expect((await slots()).Item).toBeUndefined();
  });

  it('an unknown tenant is NOT_FOUND, with or without a plan change, and nothing is created', async () => {
    for (const patch of [{ plan: 'business' as const }, { name: 'x' }]) {
      const missing = randomUUID();
      await expect(updateTenant(db, missing, patch)).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: `Tenant ${missing} not found.`,
      });
      expect(await getTenant(db, missing)).toBeUndefined();
    }
  });

  it('a tenant gone between its change and the read of it as it is now is NOT_FOUND', async () => {
    const { id } = await tenant();
    const goneOnRead = instrument(db, ({ name }) => (name === 'GetItemCommand' ? { answer: {} } : undefined));
    await expect(updateTenant(goneOnRead.db, id, { plan: 'business' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `Tenant ${id} not found.`,
    });
  });

  it('any other refusal of the change reaches the caller as it is, with or without a plan change', async () => {
    const made = await tenant();
    const remove = injectFaults(db, (operation, input) =>
      ['UpdateItemCommand', 'TransactWriteItemsCommand'].includes(operation) &&
      JSON.stringify(input).includes(made.id)
        ? Object.assign(new Error('bad'), { name: 'ValidationException' })
        : undefined,
    );
    try {
      for (const patch of [{ plan: 'business' as const }, { name: 'x' }]) {
        await expect(updateTenant(db, made.id, patch)).rejects.toMatchObject({ name: 'ValidationException' });
      }
    } finally {
      remove();
    }
  });

  it('a tenant stored without the index attributes joins the list at its next change', async () => {
    const id = randomUUID();
    await db.client.send(
      new PutCommand({
        TableName: db.tableName,
        Item: {
          ...keys.tenant(id),
          type: 'TENANT',
          id,
          name: 'Old',
          plan: 'free',
          features: [],
          active: true,
          createdAt: '2026-11-20T08:00:00.000Z',
          updatedAt: '2026-11-20T08:00:00.000Z',
        },
      }),
    );
    const listed = async () => {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await listTenants(db, { limit: 100, cursor });
        ids.push(...page.items.map((t) => t.id));
        cursor = page.nextCursor;
      } while (cursor);
      return ids;
    };
    expect(await listed()).not.toContain(id);
    await updateTenant(db, id, { name: 'Old, renamed' });
    expect(await listed()).toContain(id);
  });
});

describe('users', () => {
  it("lists a tenant's users a page at a time, and no one else's", async () => {
    const [mine, other] = [await tenant(), await tenant()];
    const made = [await user(mine.id), await user(mine.id), await user(mine.id)];
    await user(other.id);
    const first = await listUsers(db, mine.id, { limit: 2 });
    const second = await listUsers(db, mine.id, { limit: 2, cursor: first.nextCursor });
    expect(second.nextCursor).toBeUndefined();
    expect([...first.items, ...second.items].map((u) => u.id)).toEqual(made.map((u) => u.id));
    expect(first.items[0]).toEqual(made[0]);
  });

  it('one user per e-mail across tenants, whatever its case; a user needs an existing tenant', async () => {
    const [a, b] = [await tenant(), await tenant()];
    const email = `Someone-${randomUUID()}@Example.test`;
    const made = await user(a.id, email);
    expect(made.email).toBe(email.toLowerCase());
    // Stored by type: the user, their e-mail's lookup item, and the tenant.
    const [userItem, emailItem, tenantItem] = await Promise.all(
      [keys.user(a.id, made.id), keys.email(made.email), keys.tenant(a.id)].map(
        async (Key) => (await db.client.send(new GetCommand({ TableName: db.tableName, Key }))).Item,
      ),
    );
    expect([userItem?.type, emailItem?.type, tenantItem?.type]).toEqual(['USER', 'EMAIL', 'TENANT']);
    expect(emailItem).toMatchObject({ tenantId: a.id, userId: made.id });
    // Whitespace around an address is no part of it.
    expect((await findUserByEmail(db, ` ${email} `))?.user.id).toBe(made.id);
    expect((await findUserByEmail(db, email.toLowerCase()))?.user.id).toBe(made.id);
    await expect(user(b.id, email.toUpperCase())).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `A user with e-mail ${email.toLowerCase()} already exists.`,
      cause: { name: 'TransactionCanceledException' },
    });
    const missing = randomUUID();
    await expect(user(missing)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `Tenant ${missing} not found.`,
      cause: { name: 'TransactionCanceledException' },
    });
  });

  it('any other refusal of a new user reaches the caller as it is', async () => {
    const { id: tenantId } = await tenant();
    const email = `u-${randomUUID()}@example.test`;
    const remove = injectFaults(db, (operation, input) =>
      operation === 'TransactWriteItemsCommand' && JSON.stringify(input).includes(email)
        ? Object.assign(new Error('bad'), { name: 'ValidationException' })
        : undefined,
    );
    try {
      await expect(user(tenantId, email)).rejects.toMatchObject({ name: 'ValidationException' });
    } finally {
      remove();
    }
  });
});

describe('users: changes', () => {
  it('a user is read with their tenant, and not at all when either is missing', async () => {
    const { id: tenantId } = await tenant();
    const made = await user(tenantId);
    expect(await getUserWithTenant(db, tenantId, made.id)).toMatchObject({
      user: { id: made.id },
      tenant: { id: tenantId },
    });
    expect(await getUserWithTenant(db, tenantId, randomUUID())).toBeUndefined();
    await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.tenant(tenantId) }));
    expect(await getUserWithTenant(db, tenantId, made.id)).toBeUndefined();
  });

  it('changes a user and answers it as it is now; an unknown user is NOT_FOUND and nothing is created', async () => {
    const { id: tenantId } = await tenant();
    const made = await user(tenantId);
    expect(await updateUser(db, tenantId, made.id, { role: 'EDITOR', disabled: true })).toMatchObject({
      id: made.id,
      role: 'EDITOR',
      disabled: true,
    });
    // A field the patch leaves undefined keeps its value.
    expect(await updateUser(db, tenantId, made.id, { role: 'ADMIN', disabled: undefined })).toMatchObject({
      role: 'ADMIN',
      disabled: true,
    });
    const missing = randomUUID();
    await expect(updateUser(db, tenantId, missing, { role: 'ADMIN' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `User ${missing} not found.`,
    });
    const stored = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.user(tenantId, missing) }),
    );
    expect(stored.Item).toBeUndefined();
  });

  it('with the role the caller read: changed meanwhile, a WriteConflict on the user; gone, NOT_FOUND', async () => {
    const { id: tenantId } = await tenant();
    const made = await user(tenantId);
    expect(
      await updateUser(
        db,
        tenantId,
        made.id,
        { disabled: true },
        { ifRole: 'VIEWER', raiseTokenVersion: true },
      ),
    ).toMatchObject({ role: 'VIEWER', disabled: true, tokenVersion: made.tokenVersion + 1 });
    await expect(
      updateUser(db, tenantId, made.id, { role: 'ADMIN' }, { ifRole: 'EDITOR' }),
    ).rejects.toMatchObject({
      name: 'WriteConflict',
      on: 'user',
      cause: { name: 'ConditionalCheckFailedException' },
    });
    expect((await getUser(db, tenantId, made.id))?.role).toBe('VIEWER');
    const missing = randomUUID();
    await expect(
      updateUser(db, tenantId, missing, { role: 'ADMIN' }, { ifRole: 'VIEWER' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `User ${missing} not found.`,
    });
  });

  it('a change that ends the sessions answers the user as written, and refuses a user read before it', async () => {
    const { id: tenantId } = await tenant();
    const made = await user(tenantId);
    const current = (await getUser(db, tenantId, made.id))!;
    const event = auditEvent(systemContext('test'), {
      type: 'sessions.revoked',
      tenantId,
      target: { type: 'user', id: made.id },
    });
    const changed = await putUserChange(db, current, { disabled: true, role: undefined }, event);
    expect(changed).toEqual({
      ...current,
      disabled: true,
      tokenVersion: current.tokenVersion + 1,
      updatedAt: expect.any(String),
    });
    expect(await getUser(db, tenantId, made.id)).toEqual(changed);
    await expect(putUserChange(db, current, { disabled: false }, event)).rejects.toMatchObject({
      name: 'WriteConflict',
      on: 'user',
      cause: { name: 'TransactionCanceledException' },
    });
  });

  it('any other refusal of the write reaches the caller as it is', async () => {
    const { id: tenantId } = await tenant();
    const made = await user(tenantId);
    const remove = injectFaults(db, (operation, input) =>
      operation === 'UpdateItemCommand' && JSON.stringify(input).includes(made.id)
        ? Object.assign(new Error('bad'), { name: 'ValidationException' })
        : undefined,
    );
    try {
      await expect(updateUser(db, tenantId, made.id, { role: 'ADMIN' })).rejects.toMatchObject({
        name: 'ValidationException',
      });
    } finally {
      remove();
    }
  });
});

describe('KPIs', () => {
  it('a KPI needs an existing tenant: NOT_FOUND naming it, and nothing is created', async () => {
    const { id: tenantId } = await tenant();
    await db.client.send(new DeleteCommand({ TableName: db.tableName, Key: keys.tenant(tenantId) }));
    await expect(createKpi(db, tenantId, { type: 'OKR_KEY_RESULT', name: 'Revenue' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `Tenant ${tenantId} not found.`,
    });
  });
});

describe('strategic cycles', () => {
  it('a cycle may be one day long; it cannot end before it starts; its tenant must exist', async () => {
    const made = await tenant();
    const day = { name: 'Day', startDate: '2026-05-01', endDate: '2026-05-01' };
    const cycle = await createStrategicCycle(db, made.id, day);
    expect(cycle).toMatchObject(day);
    const stored = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.strategicCycle(made.id, cycle.id) }),
    );
    expect(stored.Item).toMatchObject({ type: 'CYCLE', tenantId: made.id, ...day });
    await expect(
      createStrategicCycle(db, made.id, { name: 'Back', startDate: '2026-05-02', endDate: '2026-05-01' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'The cycle ends before it starts.',
      errors: [{ path: 'endDate', message: 'must be on or after the start date 2026-05-02' }],
    });
    const missing = randomUUID();
    await expect(createStrategicCycle(db, missing, day)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `Tenant ${missing} not found.`,
    });
  });
});
