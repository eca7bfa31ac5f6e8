import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../../lib/api-keys/key-format';
import { createApiKey } from '../../../../lib/api-keys/service';
import { keysExpiringBetween } from '../../../../lib/db/alerts';
import { countRequest, recentUsageOf } from '../../../../lib/db/api-key-usage';
import { putMessage, visibleMessages } from '../../../../lib/db/queue-messages';
import { endpointsOf } from '../../../../lib/db/webhooks';
import { webhookSecrets } from '../../../../lib/runtime';
import { createEndpoint } from '../../../../lib/webhooks/service';
import { createTestTenant, db } from '../../../support/fixtures';
import { smallPages } from '../../../support/instrumented-db';

/**
 * The readers that follow LastEvaluatedKey read every page: each reads the same through a client whose
 * pages hold one item (as DynamoDB's do past 1 MB) as through the plain client, in several Queries.
 */
const DAY_MS = 86_400_000;
const queries = (calls: { command: string }[]) =>
  calls.filter(({ command }) => command === 'QueryCommand').length;

const sameOnEveryPage = async <T>(read: (database: typeof db) => Promise<T>, atLeast: number) => {
  const paged = smallPages(db);
  const whole = await read(db);
  expect(await read(paged.db)).toEqual(whole);
  expect(queries(paged.calls)).toBeGreaterThanOrEqual(atLeast);
  return whole;
};

describe('readers of more than one page', () => {
  it('the keys expiring soon (the alert check)', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const now = Date.now();
    for (const days of [1, 2, 3]) {
      await createApiKey(db, {
        tenantId: tenant.tenant.id,
        name: `expiring in ${days}`,
        expiresAt: new Date(now + days * DAY_MS).toISOString(),
      });
    }
    const expiring = await sameOnEveryPage(
      (database) => keysExpiringBetween(database, now, now + 7 * DAY_MS),
      4,
    );
    expect(expiring.filter(({ key }) => key.tenantId === tenant.tenant.id)).toHaveLength(3);
  });

  it('a key’s usage days', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    const key = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'used' });
    const hash = hashApiKey(key.key);
    const now = Date.now();
    for (const daysAgo of [0, 1, 2]) {
      const at = now - daysAgo * DAY_MS;
      await countRequest(
        db,
        hash,
        { windowStart: Math.floor(at / 60_000) * 60, windowSeconds: 60 },
        { at: new Date(at).toISOString() },
      );
    }
    const usage = await sameOnEveryPage((database) => recentUsageOf(database, [hash], now), 3);
    expect(usage.get(hash)).toHaveLength(3);
  });

  it('a tenant’s webhook endpoints and a local queue’s visible messages', async () => {
    const tenant = await createTestTenant({ kpiTypes: [] });
    for (const n of [1, 2, 3]) {
      await createEndpoint(
        { db, secrets: webhookSecrets, local: false },
        {
          tenantId: tenant.tenant.id,
          url: `https://hooks.example.com/${n}`,
          eventTypes: ['kpi.quiet'],
          createdBy: null,
        },
      );
    }
    const endpoints = await sameOnEveryPage((database) => endpointsOf(database, tenant.tenant.id), 4);
    expect(endpoints).toHaveLength(3);

    const queue = `pages-${randomUUID()}`;
    for (const n of [1, 2, 3]) {
      await putMessage(db, queue, { id: `m${n}`, body: `body ${n}`, visibleAt: 0, receiveCount: 0 });
    }
    const messages = await sameOnEveryPage((database) => visibleMessages(database, queue, Date.now()), 4);
    expect(messages.map(({ body }) => body)).toEqual(['body 1', 'body 2', 'body 3']);
  });
});
