import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../../lib/api-keys/key-format';
import { createApiKey } from '../../../../lib/api-keys/service';
import { keyUsage } from '../../../../lib/api-keys/usage';
import { countRefusal } from '../../../../lib/db/api-key-usage';
import { createTestTenant, db } from '../../../support/fixtures';

/** lib/api-keys/usage.ts: a key's usage over a range of days, from what the push path stored. */
describe('a key’s usage over days', () => {
  it('totals the days; the last request and its source are the newest day’s that had one', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const key = await createApiKey(db, { tenantId: tenant.id, name: 'Cron' });
    const hash = hashApiKey(key.key);
    await countRefusal(db, hash, '2026-11-20', 'validation', {
      at: '2026-11-20T08:00:00.000Z',
      sourceIp: '203.0.113.1',
      userAgent: 'old-job/1.0',
    });
    await countRefusal(db, hash, '2026-11-22', 'scope', {
      at: '2026-11-22T09:30:00.000Z',
      sourceIp: '203.0.113.2',
      userAgent: 'new-job/2.0',
    });
    const usage = await keyUsage(db, tenant.id, key.id, { from: '2026-11-19', to: '2026-11-24' });
    expect(usage.days.map((day) => day.date)).toEqual([
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
    ]);
    expect(usage.totals).toMatchObject({
      refused: { authentication: 0, scope: 1, rateLimit: 0, validation: 1, featureOff: 0 },
      lastRequestAt: '2026-11-22T09:30:00.000Z',
      lastSourceIp: '203.0.113.2',
      lastUserAgent: 'new-job/2.0',
    });
  });

  it('names where the newest refusal for its source came from, though a later day had other requests', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const key = await createApiKey(db, { tenantId: tenant.id, name: 'Fenced' });
    const hash = hashApiKey(key.key);
    const refuse = (date: string, reason: 'source' | 'validation', sourceIp: string) =>
      countRefusal(db, hash, date, reason, { at: `${date}T08:00:00.000Z`, sourceIp, userAgent: 'job/1.0' });
    await refuse('2026-11-20', 'source', '198.51.100.1');
    await refuse('2026-11-21', 'source', '198.51.100.2');
    await refuse('2026-11-22', 'validation', '203.0.113.3');
    const usage = await keyUsage(db, tenant.id, key.id, { from: '2026-11-19', to: '2026-11-23' });
    expect(usage.totals).toMatchObject({ lastRefusedSourceIp: '198.51.100.2', lastSourceIp: '203.0.113.3' });
  });

  it('a range without requests has no last request; an unknown key is NOT_FOUND, naming it', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const key = await createApiKey(db, { tenantId: tenant.id, name: 'Idle' });
    const usage = await keyUsage(db, tenant.id, key.id, { from: '2026-11-01', to: '2026-11-02' });
    expect(usage.totals).toMatchObject({
      requests: 0,
      lastRequestAt: null,
      lastSourceIp: null,
      lastUserAgent: null,
      lastRefusedSourceIp: null,
    });
    const missing = randomUUID();
    await expect(
      keyUsage(db, tenant.id, missing, { from: '2026-11-01', to: '2026-11-02' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `API key ${missing} not found.`,
    });
  });
});
