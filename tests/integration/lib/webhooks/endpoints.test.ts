import { describe, expect, it } from 'vitest';
import { webhookSecrets } from '../../../../lib/runtime';
import { createEndpoint, deleteEndpoint, listEndpoints } from '../../../../lib/webhooks/service';
import { cancelled } from '../../../support/faults';
import { createTestTenant, db } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

/**
 * Creating and deleting an endpoint change the tenant's count item in a transaction, which a
 * concurrent change of the same tenant can cancel (TransactionConflict). Such a write is tried
 * again, and after 25 tries the caller is told to retry: it never loops, and any other refusal
 * reaches the caller at once.
 */
const url = 'https://hooks.example.com/strategy';
const conflict = () => cancelled('TransactionConflict', 'None', 'None');
const writes = (calls: { command: string }[]) =>
  calls.filter(({ command }) => command === 'TransactWriteItemsCommand').length;

/** The table through a client whose first `times` transactions are cancelled by a conflict. */
const conflicting = (times: number) =>
  instrument(db, (command, nth) => {
    if (command.name === 'TransactWriteItemsCommand' && nth < times) throw conflict();
    return undefined;
  });

const newEndpoint = (database: typeof db, tenantId: string) =>
  createEndpoint(
    { db: database, secrets: webhookSecrets, local: false },
    { tenantId, url, eventTypes: ['kpi.quiet'], createdBy: null },
  );

describe('an endpoint write that meets a concurrent change', () => {
  it('is created after conflicts, once', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const probe = conflicting(3);
    const created = await newEndpoint(probe.db, tenant.id);
    expect(writes(probe.calls)).toBe(4);
    expect((await listEndpoints(db, tenant.id)).map(({ id }) => id)).toEqual([created.id]);
  });

  it('gives up after 25 tries with 503 and Retry-After, having created nothing', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const probe = conflicting(Number.POSITIVE_INFINITY);
    await expect(newEndpoint(probe.db, tenant.id)).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'Retry-After': '1' },
    });
    expect(writes(probe.calls)).toBe(25);
    expect(await listEndpoints(db, tenant.id)).toEqual([]);
  });

  it('is deleted after conflicts, and gives up after 25 tries leaving the endpoint in place', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const kept = await newEndpoint(db, tenant.id);
    const always = conflicting(Number.POSITIVE_INFINITY);
    await expect(deleteEndpoint(always.db, tenant.id, kept.id)).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(writes(always.calls)).toBe(25);
    expect((await listEndpoints(db, tenant.id)).map(({ id }) => id)).toEqual([kept.id]);

    const twice = conflicting(2);
    expect(await deleteEndpoint(twice.db, tenant.id, kept.id)).toBe(true);
    expect(writes(twice.calls)).toBe(3);
    expect(await listEndpoints(db, tenant.id)).toEqual([]);
  });

  it('passes any other refusal through at once, without trying again', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const refused = instrument(db, (command) => {
      if (command.name === 'TransactWriteItemsCommand')
        throw Object.assign(new Error('One or more parameter values were invalid'), {
          name: 'ValidationException',
        });
      return undefined;
    });
    await expect(newEndpoint(refused.db, tenant.id)).rejects.toMatchObject({ name: 'ValidationException' });
    expect(writes(refused.calls)).toBe(1);
  });
});
