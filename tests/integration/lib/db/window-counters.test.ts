import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { countInWindow } from '../../../../lib/db/window-counters';
import { db } from '../../../support/fixtures';

/** A fixed-window counter on one item: its ordinals, the window it keeps and when the item goes. */
describe('a window counter', () => {
  it('counts 1, 2 in a window, starts the next at 1 and keeps the one before (late counts go on in it), drops it a window later', async () => {
    const key = { pk: `COUNTER#${randomUUID()}`, sk: 'COUNTER' };
    const windowSeconds = 60;
    const first = { windowStart: 1_800_000_000, windowSeconds };
    expect(await countInWindow(db, key, first)).toBe(1);
    expect(await countInWindow(db, key, first)).toBe(2);
    const next = { windowStart: first.windowStart + windowSeconds, windowSeconds };
    expect(await countInWindow(db, key, next)).toBe(1);
    expect(await countInWindow(db, key, first)).toBe(3);
    const item = async () =>
      (await db.client.send(new GetCommand({ TableName: db.tableName, Key: key }))).Item;
    expect(await item()).toMatchObject({ [`w${first.windowStart}`]: 3, [`w${next.windowStart}`]: 1 });
    const third = { windowStart: next.windowStart + windowSeconds, windowSeconds };
    expect(await countInWindow(db, key, third)).toBe(1);
    expect(await item()).toEqual({
      ...key,
      type: 'WINDOW_COUNTER',
      [`w${next.windowStart}`]: 1,
      [`w${third.windowStart}`]: 1,
      ttl: third.windowStart + 3 * windowSeconds,
    });
  });
});
