import { createHash, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { auditEventPage } from '../../../../lib/db/audit-events';
import { keys } from '../../../../lib/db/keys';
import { EndpointLimitReached, putEndpoint, putEndpointDeletion } from '../../../../lib/db/webhooks';
import { auditEvent, systemContext } from '../../../../lib/domain/audit-event';
import { MAX_WEBHOOK_ENDPOINTS } from '../../../../lib/domain/webhook';
import { webhookSecrets } from '../../../../lib/runtime';
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
} from '../../../../lib/webhooks/service';
import { cancelled } from '../../../support/faults';
import { createTestTenant, db } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';
import { captureOutput } from '../../../support/output';

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
      message: 'Too many concurrent webhook changes; retry.',
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

  it('is a WriteConflict on the tenant’s count, with DynamoDB’s refusal as its cause, at the repository', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const { secret: _, ...endpoint } = await newEndpoint(db, tenant.id);
    const always = conflicting(Number.POSITIVE_INFINITY);
    const event = auditEvent(systemContext('test'), {
      type: 'webhook.deleted',
      tenantId: tenant.id,
      target: { type: 'webhook', id: endpoint.id },
    });
    const conflict = {
      name: 'WriteConflict',
      on: 'webhook count',
      cause: { name: 'TransactionCanceledException' },
    };
    await expect(
      putEndpoint(
        always.db,
        { endpoint: { ...endpoint, id: randomUUID() }, sealedSecret: 'x', deletedAt: null },
        10,
        event,
      ),
    ).rejects.toMatchObject(conflict);
    await expect(
      putEndpointDeletion(always.db, tenant.id, endpoint.id, new Date().toISOString(), 1, event),
    ).rejects.toMatchObject(conflict);
  });

  it('at the repository: an endpoint over the maximum is EndpointLimitReached, a second deletion false', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const { secret: _, ...endpoint } = await newEndpoint(db, tenant.id);
    const event = auditEvent(systemContext('test'), {
      type: 'webhook.created',
      tenantId: tenant.id,
      target: { type: 'webhook', id: endpoint.id },
    });
    const over = await putEndpoint(
      db,
      { endpoint: { ...endpoint, id: randomUUID() }, sealedSecret: 'x', deletedAt: null },
      1,
      event,
    ).catch((error: unknown) => error);
    expect(over).toBeInstanceOf(EndpointLimitReached);
    expect(over).toMatchObject({
      name: 'EndpointLimitReached',
      message: 'at most 1 endpoints',
      cause: { name: 'TransactionCanceledException' },
    });
    const at = new Date().toISOString();
    expect(await putEndpointDeletion(db, tenant.id, endpoint.id, at, 1, event)).toBe(true);
    expect(await putEndpointDeletion(db, tenant.id, endpoint.id, at, 1, event)).toBe(false);
    expect(await putEndpointDeletion(db, tenant.id, randomUUID(), at, 1, event)).toBe(false);
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

describe('the endpoint use cases', () => {
  const events = async (tenantId: string) =>
    (await auditEventPage(db, tenantId, { order: 'newest' }, { limit: 10 })).items;

  it('audit a change the service makes on its own as the system "service", naming the URL by origin and hash', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const created = await newEndpoint(db, tenant.id);
    const at = Date.now() + 60_500; // a minute after the creation: the newest event
    expect(await deleteEndpoint(db, tenant.id, created.id, undefined, at)).toBe(true);
    const details = {
      urlOrigin: 'https://hooks.example.com',
      urlRestSha256: createHash('sha256').update('/strategy').digest('hex').slice(0, 16),
      eventTypes: ['kpi.quiet'],
    };
    expect(await events(tenant.id)).toEqual([
      expect.objectContaining({
        type: 'webhook.deleted',
        actor: { type: 'system', id: 'service' },
        target: { type: 'webhook', id: created.id },
        details,
      }),
      expect.objectContaining({
        type: 'webhook.created',
        actor: { type: 'system', id: 'service' },
        details,
      }),
    ]);
    // The tombstone goes with the delivery log, 30 days after the deletion.
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.webhookEndpoint(tenant.id, created.id) }),
    );
    expect(Item).toMatchObject({
      deletedAt: new Date(at).toISOString(),
      ttl: Math.floor(at / 1000) + 30 * 86_400,
    });
  });

  it('delete an endpoint once: again it is false and writes nothing; an unknown one is 404 naming it', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const created = await newEndpoint(db, tenant.id);
    const first = await captureOutput(() => deleteEndpoint(db, tenant.id, created.id));
    expect(first.result).toBe(true);
    expect(first.lines.filter((line) => line.audit === 'webhook.deleted')).toEqual([
      expect.objectContaining({ tenantId: tenant.id, actorType: 'system', actorId: 'service' }),
    ]);
    const probe = instrument(db);
    const again = await captureOutput(() => deleteEndpoint(probe.db, tenant.id, created.id));
    expect(again.result).toBe(false);
    expect(again.lines.filter((line) => line.audit === 'webhook.deleted')).toEqual([]);
    expect(writes(probe.calls)).toBe(0);
    const unknown = '0193e1a2-3b4c-7d5e-8f60-718293a4b5c6';
    await expect(deleteEndpoint(db, tenant.id, unknown)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `Webhook endpoint ${unknown} not found.`,
    });
    await expect(listDeliveries(db, tenant.id, created.id, { limit: 10 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `Webhook endpoint ${created.id} not found.`,
    });
  });

  it('refuse a URL the egress rules refuse, naming why, and more endpoints than the maximum, naming it', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    await expect(
      createEndpoint(
        { db, secrets: webhookSecrets, local: false },
        {
          tenantId: tenant.id,
          url: 'http://hooks.example.com/x',
          eventTypes: ['kpi.quiet'],
          createdBy: null,
        },
      ),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/^The url .+\.$/),
      errors: [{ path: 'url', message: expect.any(String) }],
    });
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) await newEndpoint(db, tenant.id);
    await expect(newEndpoint(db, tenant.id)).rejects.toMatchObject({
      code: 'WEBHOOK_LIMIT_REACHED',
      message: `A tenant may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first.`,
      extensions: { limit: MAX_WEBHOOK_ENDPOINTS },
    });
  });
});
