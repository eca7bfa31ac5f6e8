import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  countRefusal,
  countRequest,
  recentUsageOf,
  recordUse,
  requestsInWindow,
  USAGE_RETENTION_DAYS,
  usageDays,
} from '../../../../lib/db/api-key-usage';
import { keys } from '../../../../lib/db/keys';
import { USAGE_REFUSALS } from '../../../../lib/domain/api-key-usage';
import { injectFaults } from '../../../support/faults';
import { db } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';

/**
 * A key's usage, one item per UTC day (spec 5.2.5): the rate-limit counters, one per window, the day's
 * counts by outcome and `lastUsedAt`, kept to a handful of attributes.
 */
const WINDOW = 60;
/** 2030-01-01T00:00:00Z in epoch seconds: windows on one known day. */
const DAY_START = Date.parse('2030-01-01T00:00:00Z') / 1000;
const DAY = '2030-01-01';
const hash = () => randomUUID().replaceAll('-', '');
const usageItem = async (keyHash: string, day = DAY) =>
  (
    await db.client.send(
      new GetCommand({
        TableName: db.tableName,
        Key: keys.apiKeyUsageDay(keyHash, day),
        ConsistentRead: true,
      }),
    )
  ).Item;
const inWindow = (offset: number) => ({ windowStart: DAY_START + offset, windowSeconds: WINDOW });
const at = (offset: number) => new Date((DAY_START + offset) * 1000).toISOString();
const source = (offset: number) => ({ at: at(offset) });
const use = (offset: number, measurements = 1, staleWindows: string[] = []) => ({
  day: DAY,
  at: at(offset),
  measurements,
  staleWindows,
});

describe('rate-limit counters, on the item of the window’s day', () => {
  it('count 1, 2, 3 in a window; the next starts at 1 and keeps it; the one after drops it', async () => {
    const key = hash();
    const counts = [];
    for (let i = 0; i < 3; i++) counts.push((await countRequest(db, key, inWindow(0), source(0))).count);
    expect(counts).toEqual([1, 2, 3]);
    expect(await countRequest(db, key, inWindow(60), source(60))).toEqual({
      count: 1,
      day: DAY,
      staleWindows: [],
    });
    // A request that read its clock in the first window and reaches the table late counts on in it.
    expect((await countRequest(db, key, inWindow(0), source(0))).count).toBe(4);
    expect(await usageItem(key)).toMatchObject({
      [`w${DAY_START}`]: 4,
      [`w${DAY_START + 60}`]: 1,
      requests: 5,
    });
    // A late request of the previous window reports the current one as live, not stale.
    expect((await countRequest(db, key, inWindow(0), source(0))).staleWindows).toEqual([]);
    await countRequest(db, key, inWindow(120), source(120));
    const item = await usageItem(key);
    expect(item).toMatchObject({ [`w${DAY_START + 60}`]: 1, [`w${DAY_START + 120}`]: 1, requests: 7 });
    expect(item).not.toHaveProperty(`w${DAY_START}`);
  });

  it('a window that starts before midnight counts on its day, also after midnight', async () => {
    const key = hash();
    const lastWindow = { windowStart: DAY_START - 30, windowSeconds: WINDOW };
    expect((await countRequest(db, key, lastWindow, source(10))).day).toBe('2029-12-31');
    expect((await countRequest(db, key, lastWindow, source(20))).count).toBe(2);
    expect(await usageItem(key, '2029-12-31')).toMatchObject({ requests: 2 });
    expect(await usageItem(key)).toBeUndefined();
  });

  it('reports counters older than the previous window as stale, for the next write to remove', async () => {
    const key = hash();
    await countRequest(db, key, inWindow(0), source(0));
    const later = await countRequest(db, key, inWindow(180), source(180));
    expect(later).toEqual({ count: 1, day: DAY, staleWindows: [`w${DAY_START}`] });
    await recordUse(db, key, use(180, 1, later.staleWindows));
    const item = await usageItem(key);
    expect(Object.keys(item ?? {}).filter((name) => /^w\d+$/.test(name))).toEqual([`w${DAY_START + 180}`]);
    expect(item?.lastUsedAt).toBe(at(180));
  });

  it('removes every stale counter it is given in one write, and only those', async () => {
    const key = hash();
    await db.client.send(
      new PutCommand({
        TableName: db.tableName,
        Item: { ...keys.apiKeyUsageDay(key, DAY), w6000: 1, w6060: 2, w6120: 3 },
      }),
    );
    await recordUse(db, key, use(0, 1, ['w6000', 'w6060']));
    expect(await usageItem(key)).toMatchObject({ w6120: 3, lastUsedAt: at(0) });
    expect(await usageItem(key)).not.toHaveProperty('w6000');
    expect(await usageItem(key)).not.toHaveProperty('w6060');
  });

  it('reads the count of a window without counting', async () => {
    const key = hash();
    expect(await requestsInWindow(db, key, DAY_START)).toBe(0);
    await countRequest(db, key, inWindow(0), source(0));
    await countRequest(db, key, inWindow(0), source(1));
    expect(await requestsInWindow(db, key, DAY_START)).toBe(2);
    expect(await requestsInWindow(db, key, DAY_START)).toBe(2);
    expect(await requestsInWindow(db, key, DAY_START + 60)).toBe(0);
  });

  it('refuses a counter that is not a count, naming the window’s attribute, never its value', async () => {
    const key = hash();
    await countRequest(db, key, inWindow(0), source(0));
    const item = keys.apiKeyUsageDay(key, new Date(DAY_START * 1000).toISOString().slice(0, 10));
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: item,
        UpdateExpression: 'SET #w = :bad',
        ExpressionAttributeNames: { '#w': `w${DAY_START}` },
        ExpressionAttributeValues: { ':bad': 'secret-looking' },
      }),
    );
    const error = await requestsInWindow(db, key, DAY_START).then(
      () => expect.unreachable('read'),
      (e: unknown) => e as Error,
    );
    expect(error).toMatchObject({ name: 'MalformedItem', entity: 'USAGE' });
    expect(error.message).toMatch(new RegExp(`malformed: w${DAY_START}: `));
    expect(error.message).not.toContain('secret-looking');
  });
});

describe('a day of usage', () => {
  it('counts requests, accepted pushes and their measurements, and refusals by reason', async () => {
    const key = hash();
    await countRequest(db, key, inWindow(0), { at: at(1), sourceIp: '203.0.113.7', userAgent: 'cron/1' });
    await recordUse(db, key, use(1, 5));
    await countRequest(db, key, inWindow(0), { at: at(2), sourceIp: '2001:db8::1', userAgent: 'curl/8' });
    await countRefusal(db, key, DAY, 'validation', {
      at: at(2),
      sourceIp: '2001:db8::1',
      userAgent: 'curl/8',
    });
    await countRefusal(db, key, DAY, 'authentication', { at: at(3) });
    const [day] = await usageDays(db, key, DAY, DAY);
    expect(day).toEqual({
      date: DAY,
      requests: 2,
      accepted: 1,
      measurements: 5,
      refused: { authentication: 1, source: 0, scope: 0, rateLimit: 0, validation: 1, featureOff: 0 },
      firstRequestAt: at(1),
      lastRequestAt: at(3),
      lastUsedAt: at(1),
      // A refusal without a source keeps the last one known.
      lastSourceIp: '2001:db8::1',
      lastUserAgent: 'curl/8',
      lastRefusedSourceIp: null,
    });
  });

  it('keeps the address of the last request refused for its source apart from the last request’s', async () => {
    const key = hash();
    await countRefusal(db, key, DAY, 'source', { at: at(1), sourceIp: '198.51.100.23', userAgent: 'x' });
    await countRefusal(db, key, DAY, 'source', { at: at(2), sourceIp: '198.51.100.24', userAgent: 'x' });
    // An allowed request after it, and a refusal for another reason: the refused address stays.
    await countRequest(db, key, inWindow(0), { at: at(3), sourceIp: '203.0.113.7', userAgent: 'cron/1' });
    await countRefusal(db, key, DAY, 'validation', { at: at(4), sourceIp: '203.0.113.8' });
    const [day] = await usageDays(db, key, DAY, DAY);
    expect(day).toMatchObject({
      refused: { source: 2, validation: 1, authentication: 0 },
      lastSourceIp: '203.0.113.8',
      lastRefusedSourceIp: '198.51.100.24',
    });
    // A source refusal whose address is unknown is counted, and keeps the last known one.
    await countRefusal(db, key, DAY, 'source', { at: at(5) });
    const [after] = await usageDays(db, key, DAY, DAY);
    expect(after).toMatchObject({ refused: { source: 3 }, lastRefusedSourceIp: '198.51.100.24' });
  });

  it(`expires ${USAGE_RETENTION_DAYS} days after its day (ttl), and a range reads only its days`, async () => {
    const key = hash();
    await countRequest(db, key, inWindow(0), source(0));
    await countRequest(
      db,
      key,
      { windowStart: DAY_START + 86_400, windowSeconds: WINDOW },
      { at: at(86_400) },
    );
    expect((await usageItem(key))?.ttl).toBe(DAY_START + (USAGE_RETENTION_DAYS + 1) * 86_400);
    expect((await usageDays(db, key, DAY, DAY)).map((day) => day.date)).toEqual([DAY]);
    expect((await usageDays(db, key, DAY, '2030-01-02')).map((day) => day.date)).toEqual([DAY, '2030-01-02']);
  });

  it('stays one write unit, with the longest source it keeps and every counter set', async () => {
    const key = hash();
    const probe = instrument(db);
    const longest = { sourceIp: 'f'.repeat(45), userAgent: 'u'.repeat(200) };
    await countRequest(probe.db, key, inWindow(0), { at: at(0), ...longest });
    for (const reason of USAGE_REFUSALS) {
      await countRefusal(probe.db, key, DAY, reason, { at: at(1), ...longest });
    }
    await countRequest(probe.db, key, inWindow(60), { at: at(60), ...longest });
    await recordUse(probe.db, key, use(60, 50));
    // The longest refused address is on the item too (the `source` refusal kept it).
    expect((await usageItem(key))?.lastRefusedSourceIp).toBe(longest.sourceIp);
    expect(probe.calls.map((call) => call.units)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });
});

describe('lastUsedAt', () => {
  it('never moves backwards, and a later push that lost that race is still counted', async () => {
    const key = hash();
    await recordUse(db, key, use(2));
    await recordUse(db, key, use(1));
    expect(await usageItem(key)).toMatchObject({ lastUsedAt: at(2), accepted: 2, measurements: 2 });
    await recordUse(db, key, use(3));
    expect(await usageItem(key)).toMatchObject({ lastUsedAt: at(3), accepted: 3 });
  });

  it('100 concurrent pushes are each counted once', async () => {
    const key = hash();
    await Promise.all(Array.from({ length: 100 }, (_, i) => recordUse(db, key, use(i % 7, 2))));
    expect(await usageItem(key)).toMatchObject({ accepted: 100, measurements: 200, lastUsedAt: at(6) });
  });

  it('a failure other than the later-time condition reaches the caller', async () => {
    const key = hash();
    const remove = injectFaults(db, (operation, input) =>
      operation === 'UpdateItemCommand' && JSON.stringify(input).includes(key)
        ? Object.assign(new Error('invalid'), { name: 'ValidationException' })
        : undefined,
    );
    try {
      await expect(recordUse(db, key, use(0))).rejects.toMatchObject({ name: 'ValidationException' });
    } finally {
      remove();
    }
  });

  it('a key’s stored days within the retention, newest first, one Query per key', async () => {
    const [used, unused, never] = [hash(), hash(), hash()];
    const now = Date.parse('2030-01-20T12:00:00Z');
    await recordUse(db, used, use(0));
    // A newer day with requests but no success comes first; it has no lastUsedAt.
    await countRequest(
      db,
      used,
      { windowStart: DAY_START + 5 * 86_400, windowSeconds: WINDOW },
      { at: at(5 * 86_400) },
    );
    await countRequest(db, unused, inWindow(0), source(0));
    const probe = instrument(db);
    const found = await recentUsageOf(probe.db, [used, unused, never], now);
    expect(found.get(used)?.map((day) => [day.date, day.lastUsedAt])).toEqual([
      ['2030-01-06', null],
      [DAY, at(0)],
    ]);
    expect(found.get(unused)?.map((day) => day.requests)).toEqual([1]);
    expect(found.get(never)).toEqual([]);
    expect(probe.calls.map((call) => call.command)).toEqual(Array(3).fill('QueryCommand'));
    // Beyond the retention, a day is no longer read.
    const later = DAY_START * 1000 + (USAGE_RETENTION_DAYS + 1) * 86_400_000;
    expect((await recentUsageOf(db, [used], later)).get(used)?.map((day) => day.date)).toEqual([
      '2030-01-06',
    ]);
  });
});
