import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchGet, batchPut } from '../../../../lib/db/batch';
import { db } from '../../../support/fixtures';
import { type Interceptor, instrument } from '../../../support/instrumented-db';

const items = (count: number) => {
  const pk = `BATCHTEST#${randomUUID()}`;
  return Array.from({ length: count }, (_, i) => ({ pk, sk: `ITEM#${String(i).padStart(3, '0')}`, n: i }));
};

/**
 * DynamoDB may process only part of a BatchWriteItem and return the rest as UnprocessedItems (under
 * throttling). This writes only the first half of each request and reports the other half unprocessed,
 * `times` times; the database underneath is real.
 */
const halfProcessed =
  (times: number): Interceptor =>
  (command, nth) => {
    if (command.name !== 'BatchWriteItemCommand' || nth >= times) return undefined;
    const [table, requests] = Object.entries(command.input.RequestItems as Record<string, any[]>)[0]!;
    const half = Math.floor(requests.length / 2);
    if (half === 0) return { answer: { UnprocessedItems: { [table]: requests } } };
    return {
      input: { ...command.input, RequestItems: { [table]: requests.slice(0, half) } },
      patchResult: (result: any) => ({ ...result, UnprocessedItems: { [table]: requests.slice(half) } }),
    };
  };

describe('batchPut / batchGet', () => {
  it('writes and reads more than one call holds (25 puts, 100 keys per call)', async () => {
    const written = items(130);
    await batchPut(db, written);
    const read = await batchGet(
      db,
      written.map(({ pk, sk }) => ({ pk, sk })),
    );
    expect(read.map((item) => item.n).sort((a, b) => Number(a) - Number(b))).toEqual(written.map((i) => i.n));
  });

  it('retries unprocessed items until everything is written', async () => {
    const probe = instrument(db, halfProcessed(3));
    const written = items(20);
    await batchPut(probe.db, written);
    const read = await batchGet(
      db,
      written.map(({ pk, sk }) => ({ pk, sk })),
    );
    expect(read).toHaveLength(20);
    expect(probe.calls.filter((c) => c.command === 'BatchWriteItemCommand').length).toBeGreaterThan(1);
  });

  it('reads again the keys DynamoDB left unprocessed, also when it answered none of them', async () => {
    const written = items(20);
    await batchPut(db, written);
    // Throttled as a whole: every key unprocessed, and no Responses entry for the table.
    const probe = instrument(db, (command, nth) => {
      if (command.name !== 'BatchGetItemCommand' || nth > 0) return undefined;
      return { answer: { Responses: {}, UnprocessedKeys: command.input.RequestItems } };
    });
    const read = await batchGet(
      probe.db,
      written.map(({ pk, sk }) => ({ pk, sk })),
    );
    expect(read.map((item) => item.n).sort((a, b) => Number(a) - Number(b))).toEqual(written.map((i) => i.n));
    expect(probe.calls.map((call) => call.command)).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
  });

  it('gives up with 503 SERVICE_UNAVAILABLE and Retry-After when items stay unprocessed', async () => {
    const probe = instrument(db, halfProcessed(Number.POSITIVE_INFINITY));
    await expect(batchPut(probe.db, items(4))).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database is busy; retry the request.',
      status: 503,
      headers: { 'Retry-After': '1' },
    });
  });

  it('converts every item before the first write: a value the SDK refuses writes nothing', async () => {
    const probe = instrument(db);
    const written = items(30);
    // In the second chunk of 25: the first chunk would be written before it, if it were sent first.
    const refused = [...written.slice(0, 27), { ...written[27]!, n: Number.POSITIVE_INFINITY }];
    await expect(batchPut(probe.db, refused)).rejects.toThrow(/Infinity is not allowed/);
    await expect(batchPut(probe.db, [{ ...written[0]!, n: 2 ** 60 }])).rejects.toThrow(/MAX_SAFE_INTEGER/);
    expect(probe.calls).toEqual([]);
    const read = await batchGet(
      db,
      written.map(({ pk, sk }) => ({ pk, sk })),
    );
    expect(read).toEqual([]);
  });
});
