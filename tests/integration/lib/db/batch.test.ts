import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchGet, batchPut } from '../../../../lib/db/batch';
import { BatchWriteCommand } from '../../../../lib/db/dynamo';
import { db } from '../../../support/fixtures';
import { instrument, type SentCommand } from '../../../support/instrumented-db';

const items = (count: number) => {
  const pk = `BATCHTEST#${randomUUID()}`;
  return Array.from({ length: count }, (_, i) => ({ pk, sk: `ITEM#${String(i).padStart(3, '0')}`, n: i }));
};

/**
 * DynamoDB may process only part of a BatchWriteItem and return the rest as UnprocessedItems (under
 * throttling). This writes only the first half of each request and reports the other half unprocessed,
 * `times` times; the database underneath is real.
 */
const halfProcessed = (times: number) => (command: SentCommand, nth: number) => {
  if (command.constructor.name !== 'BatchWriteCommand' || nth >= times) return undefined;
  const [table, requests] = Object.entries(command.input.RequestItems as Record<string, any[]>)[0]!;
  const half = Math.floor(requests.length / 2);
  if (half === 0) return { answer: { UnprocessedItems: { [table]: requests } } };
  return {
    send: new BatchWriteCommand({ ...command.input, RequestItems: { [table]: requests.slice(0, half) } }),
    patchResult: (result: any) => ({ ...result, UnprocessedItems: { [table]: requests.slice(half) } }),
  };
};

describe('batchPut / batchGet', () => {
  it('writes and reads more than one call holds (25 puts, 100 keys per call)', async () => {
    const written = items(130);
    expect(await batchPut(db, written)).toBe(130);
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
    expect(probe.calls.filter((c) => c.command === 'BatchWriteCommand').length).toBeGreaterThan(1);
  });

  it('reads again the keys DynamoDB left unprocessed, also when it answered none of them', async () => {
    const written = items(20);
    await batchPut(db, written);
    // Throttled as a whole: every key unprocessed, and no Responses entry for the table.
    const probe = instrument(db, (command, nth) => {
      if (command.constructor.name !== 'BatchGetCommand' || nth > 0) return undefined;
      return { answer: { Responses: {}, UnprocessedKeys: command.input.RequestItems } };
    });
    const read = await batchGet(
      probe.db,
      written.map(({ pk, sk }) => ({ pk, sk })),
    );
    expect(read.map((item) => item.n).sort((a, b) => Number(a) - Number(b))).toEqual(written.map((i) => i.n));
    expect(probe.calls.map((call) => call.command)).toEqual(['BatchGetCommand', 'BatchGetCommand']);
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
});
