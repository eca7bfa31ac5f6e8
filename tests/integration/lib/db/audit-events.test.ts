import { describe, expect, it } from 'vitest';
import {
  AUDIT_READ_BOUNDS,
  auditEventPage,
  putAuditEvent,
  writtenWithEvent,
} from '../../../../lib/db/audit-events';
import { keys } from '../../../../lib/db/keys';
import { auditEvent, systemContext } from '../../../../lib/domain/audit-event';
import { createTestTenant, db } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

/** The tenant's audit log at the repository: its pages, their cursors and a change written with its event. */
const event = (tenantId: string, at = Date.now()) =>
  auditEvent(
    systemContext('test'),
    { type: 'webhook.created', tenantId, target: { type: 'webhook', id: 'w1' }, details: {} },
    at,
  );

describe('a page of the audit log', () => {
  it('reads limit + 1 per call unfiltered, and AUDIT_READ_BOUNDS.perCall when a filter may match few', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    for (let i = 0; i < 3; i++) await putAuditEvent(db, event(tenant.id));
    const probe = instrument(db);
    const page = await auditEventPage(probe.db, tenant.id, { order: 'newest' }, { limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).toEqual(expect.any(String));
    const filtered = await auditEventPage(
      probe.db,
      tenant.id,
      { order: 'newest', types: ['webhook.created'], actorId: 'test' },
      { limit: 2 },
    );
    expect(filtered.items).toHaveLength(2);
    expect(probe.calls.map(({ input }) => input.Limit)).toEqual([3, AUDIT_READ_BOUNDS.perCall]);
  });

  it('refuses the cursor of another tenant’s log', async () => {
    const [one, other] = [await createTestTenant({ kpiTypes: [] }), await createTestTenant({ kpiTypes: [] })];
    for (let i = 0; i < 2; i++) await putAuditEvent(db, event(one.tenant.id));
    const { nextCursor } = await auditEventPage(db, one.tenant.id, { order: 'newest' }, { limit: 1 });
    await expect(
      auditEventPage(db, other.tenant.id, { order: 'newest' }, { limit: 1, cursor: nextCursor }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'cursor' }] });
  });
});

describe('a cursor of the audit log', () => {
  it('lies strictly inside the page’s time range: one outside it or on an end is a 400, never DynamoDB’s refusal', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const from = '2026-11-01T00:00:00.000Z';
    const to = '2026-11-02T00:00:00.000Z';
    const encoded = (sk: string) =>
      Buffer.from(JSON.stringify({ pk: `AUDIT#${tenant.id}`, sk })).toString('base64url');
    const page = (sk: string, order: 'newest' | 'oldest') =>
      auditEventPage(db, tenant.id, { order, from, to }, { limit: 1, cursor: encoded(sk) });
    for (const order of ['newest', 'oldest'] as const) {
      for (const sk of [
        'EVENT#2026-10-31T23:59:59.999Z#e1',
        `EVENT#${from}`, // the range's own ends
        `EVENT#${to}`,
        `EVENT#${to}#e1`,
      ]) {
        await expect(page(sk, order), `${order} ${sk}`).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      }
      for (const sk of [`EVENT#${from}#e1`, 'EVENT#2026-11-01T23:59:59.999Z#e1']) {
        await expect(page(sk, order), `${order} ${sk}`).resolves.toEqual({ items: [] });
      }
    }
  });
});

describe('a change written with its event', () => {
  it('is false, with neither written, when the change’s condition does not hold', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const refused = await writtenWithEvent(
      db,
      {
        Update: {
          TableName: db.tableName,
          Key: keys.webhookCount(tenant.id),
          UpdateExpression: 'SET #count = :one',
          ConditionExpression: 'attribute_exists(#count)',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      event(tenant.id),
    );
    expect(refused).toBe(false);
    expect((await auditEventPage(db, tenant.id, { order: 'newest' }, { limit: 10 })).items).toEqual([]);
  });
});
