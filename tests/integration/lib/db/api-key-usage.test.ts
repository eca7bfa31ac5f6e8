import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { countRequest, lastUsedOf, recordUse, requestsInWindow } from '../../../../lib/db/api-key-usage';
import { GetCommand, PutCommand } from '../../../../lib/db/dynamo';
import { keys } from '../../../../lib/db/keys';
import { injectFaults } from '../../../support/faults';
import { db } from '../../../support/fixtures';

/**
 * The usage item of a key (spec 5.2.5, issue 10): the rate-limit counters, one per window, and
 * `lastUsedAt`, kept to a handful of attributes however long the key lives.
 */
const WINDOW = 60;
const hash = () => randomUUID().replaceAll('-', '');
const usageItem = async (keyHash: string) =>
  (
    await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.apiKeyUsage(keyHash), ConsistentRead: true }),
    )
  ).Item;
const inWindow = (windowStart: number) => ({ windowStart, windowSeconds: WINDOW });

describe('rate-limit counters', () => {
  it('count 1, 2, 3 in a window; the next window starts at 1 and drops the one before', async () => {
    const key = hash();
    const counts = [];
    for (let i = 0; i < 3; i++) counts.push((await countRequest(db, key, inWindow(6000))).count);
    expect(counts).toEqual([1, 2, 3]);
    expect(await countRequest(db, key, inWindow(6060))).toEqual({ count: 1, staleWindows: [] });
    const item = await usageItem(key);
    expect(item).toMatchObject({ w6060: 1 });
    expect(item).not.toHaveProperty('w6000');
  });

  it('reports counters older than the previous window as stale, for the next write to remove', async () => {
    const key = hash();
    await countRequest(db, key, inWindow(6000));
    const later = await countRequest(db, key, inWindow(6180));
    expect(later).toEqual({ count: 1, staleWindows: ['w6000'] });
    await recordUse(db, key, '2030-01-01T00:00:00.000Z', later.staleWindows);
    const item = await usageItem(key);
    expect(Object.keys(item ?? {}).filter((name) => /^w\d+$/.test(name))).toEqual(['w6180']);
    expect(item?.lastUsedAt).toBe('2030-01-01T00:00:00.000Z');
  });

  it('removes every stale counter it is given in one write, and only those', async () => {
    const key = hash();
    await db.client.send(
      new PutCommand({
        TableName: db.tableName,
        Item: { ...keys.apiKeyUsage(key), w6000: 1, w6060: 2, w6120: 3 },
      }),
    );
    await recordUse(db, key, '2030-01-01T00:00:00.000Z', ['w6000', 'w6060']);
    expect(await usageItem(key)).toMatchObject({ w6120: 3, lastUsedAt: '2030-01-01T00:00:00.000Z' });
    expect(await usageItem(key)).not.toHaveProperty('w6000');
    expect(await usageItem(key)).not.toHaveProperty('w6060');
  });

  it('reads the count of a window without counting', async () => {
    const key = hash();
    expect(await requestsInWindow(db, key, 6000)).toBe(0);
    await countRequest(db, key, inWindow(6000));
    await countRequest(db, key, inWindow(6000));
    expect(await requestsInWindow(db, key, 6000)).toBe(2);
    expect(await requestsInWindow(db, key, 6000)).toBe(2);
    expect(await requestsInWindow(db, key, 6060)).toBe(0);
  });
});

describe('lastUsedAt', () => {
  it('never moves backwards: of two pushes the later time stays', async () => {
    const key = hash();
    await recordUse(db, key, '2030-01-01T00:00:02.000Z', []);
    await recordUse(db, key, '2030-01-01T00:00:01.000Z', []);
    expect((await usageItem(key))?.lastUsedAt).toBe('2030-01-01T00:00:02.000Z');
    await recordUse(db, key, '2030-01-01T00:00:03.000Z', []);
    expect((await usageItem(key))?.lastUsedAt).toBe('2030-01-01T00:00:03.000Z');
  });

  it('a failure other than the later-time condition reaches the caller', async () => {
    const key = hash();
    const remove = injectFaults(db, (operation, input) =>
      operation === 'UpdateItemCommand' && JSON.stringify(input).includes(key)
        ? Object.assign(new Error('invalid'), { name: 'ValidationException' })
        : undefined,
    );
    try {
      await expect(recordUse(db, key, '2030-01-01T00:00:00.000Z', [])).rejects.toMatchObject({
        name: 'ValidationException',
      });
    } finally {
      remove();
    }
  });

  it('is read for many keys in one batch, only for keys that were used', async () => {
    const [used, unused] = [hash(), hash()];
    await recordUse(db, used, '2030-01-01T00:00:00.000Z', []);
    await countRequest(db, unused, inWindow(6000)); // counted, but never recorded as used
    const found = await lastUsedOf(db, [keys.apiKey(used), keys.apiKey(unused), keys.apiKey(hash())]);
    expect([...found.entries()]).toEqual([[keys.apiKey(used).pk, '2030-01-01T00:00:00.000Z']]);
  });
});
