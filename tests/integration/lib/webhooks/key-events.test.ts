import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey, rollApiKey } from '../../../../lib/api-keys/service';
import { webhookDeps } from '../../../../lib/runtime';
import type { WebhookEvent } from '../../../../lib/webhooks/events';
import { createEndpoint, listDeliveries } from '../../../../lib/webhooks/service';
import { createTestTenant, db } from '../../../support/fixtures';
import { captureOutput } from '../../../support/output';

/**
 * Key events come from the key use cases themselves, so every caller that revokes or rolls (the API,
 * the operator CLI, a later path with an actor of its own) publishes them, once per change.
 */
const recording = () => {
  const events: WebhookEvent[] = [];
  return { events, publish: async (event: WebhookEvent) => void events.push(event) };
};

describe('key events from the use cases', () => {
  it('a revocation by an operator publishes api_key.revoked naming the operator; concurrent revocations publish once', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const key = await createApiKey(db, { tenantId: tenant.id, name: 'Leaked' });
    const { events, publish } = recording();
    const operator = { type: 'operator', name: 'secret-scanner' } as const;
    await Promise.all(
      Array.from({ length: 5 }, () => () => revokeApiKey(db, tenant.id, key.id, operator, publish)).map(
        (revoke) => revoke(),
      ),
    );
    expect(events).toEqual([
      {
        type: 'api_key.revoked',
        tenantId: tenant.id,
        occurredAt: expect.any(String),
        data: { keyId: key.id, keyPrefix: key.prefix, name: 'Leaked', revokedBy: operator },
      },
    ]);
    await revokeApiKey(db, tenant.id, key.id, operator, publish);
    expect(events).toHaveLength(1);
  });

  it('a roll publishes api_key.rolled once; a refused second roll publishes nothing', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const key = await createApiKey(db, { tenantId: tenant.id, name: 'Cron' });
    const { events, publish } = recording();
    const { created, previous } = await rollApiKey(db, { tenantId: tenant.id, keyId: key.id }, publish);
    await expect(rollApiKey(db, { tenantId: tenant.id, keyId: key.id }, publish)).rejects.toMatchObject({
      code: 'API_KEY_ALREADY_ROLLED',
    });
    expect(events).toEqual([
      {
        type: 'api_key.rolled',
        tenantId: tenant.id,
        occurredAt: previous.rolledAt,
        data: {
          keyId: key.id,
          keyPrefix: key.prefix,
          name: 'Cron',
          newKeyId: created.id,
          newKeyPrefix: created.prefix,
          oldKeyExpiresAt: previous.expiresAt,
          rolledBy: null,
        },
      },
    ]);
  });

  it('a failing publisher does not undo or fail the revocation; the failure is logged without a secret', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    for (const thrown of [Object.assign(new Error('queue down'), { name: 'QueueDown' }), 'not an Error']) {
      const key = await createApiKey(db, { tenantId: tenant.id, name: 'Kept' });
      const failing = async () => {
        throw thrown;
      };
      const { result, lines } = await captureOutput(() =>
        revokeApiKey(db, tenant.id, key.id, undefined, failing),
      );
      expect(result).toMatchObject({ graceEnded: undefined, event: { type: 'api_key.revoked' } });
      expect(lines.filter((line) => line.level === 'ERROR')).toEqual([
        expect.objectContaining({
          message: 'Publishing a key event to webhooks failed',
          event: 'api_key.revoked',
          keyId: key.id,
          error: thrown instanceof Error ? 'QueueDown' : 'unknown',
        }),
      ]);
      const { events, publish } = recording();
      await revokeApiKey(db, tenant.id, key.id, undefined, publish);
      expect(events).toEqual([]);
    }
  });

  it('names a user who revokes by id, never by e-mail', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    const key = await createApiKey(db, { tenantId: tenant.id, name: 'Mine' });
    const { events, publish } = recording();
    const by = { type: 'user', userId: users.ADMIN.id, email: users.ADMIN.email } as const;
    await revokeApiKey(db, tenant.id, key.id, by, publish);
    expect(events.map((event) => event.data.revokedBy)).toEqual([{ type: 'user', userId: users.ADMIN.id }]);
  });

  it('revoking the new key of a roll in its grace period ends the grace of the old one, and says which', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const key = await createApiKey(db, { tenantId: tenant.id, name: 'Rolled' });
    const { created } = await rollApiKey(db, { tenantId: tenant.id, keyId: key.id }, recording().publish);
    const { graceEnded } = await revokeApiKey(db, tenant.id, created.id, undefined, recording().publish);
    expect(graceEnded).toEqual({ id: key.id, prefix: key.prefix });
  });

  it('the real publisher records one pending delivery per subscribed endpoint', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const subscribed = await createEndpoint(webhookDeps, {
      tenantId: tenant.id,
      url: 'https://hooks.example.com/a',
      eventTypes: ['api_key.revoked'],
      createdBy: null,
    });
    const other = await createEndpoint(webhookDeps, {
      tenantId: tenant.id,
      url: 'https://hooks.example.com/b',
      eventTypes: ['api_key.rolled'],
      createdBy: null,
    });
    const key = await createApiKey(db, { tenantId: tenant.id, name: 'Watched' });
    const { publish } = await import('../../../../lib/runtime');
    await revokeApiKey(db, tenant.id, key.id, undefined, publish);
    const page = { limit: 10 };
    expect((await listDeliveries(db, tenant.id, subscribed.id, page)).items).toMatchObject([
      { eventType: 'api_key.revoked', status: 'pending', attempts: [] },
    ]);
    expect((await listDeliveries(db, tenant.id, other.id, page)).items).toEqual([]);
  });
});
