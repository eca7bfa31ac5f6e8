import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DUE_AT_EVERY_SIZE, measureScale } from '../../../bench/scale';
import { createDatabase } from '../../../lib/db/client';
import { INDEX_SHARDS } from '../../../lib/db/keys';
import { createTable } from '../../../scripts/local/table';

/**
 * The counting pass of `npm run bench -- --scale`, at two small sizes: the alert check and the
 * scheduler cost the same requests and write units among 5 waiting items as among 300.
 */
describe('npm run bench -- --scale, small', { timeout: 300_000 }, () => {
  it('the alert check and the scheduler pass cost what is due, whatever waits', async () => {
    const tableFor = async (name: string) => {
      const db = createDatabase({
        tableName: `scale-${name}-${randomUUID()}`,
        region: 'eu-central-1',
        endpoint: process.env.DYNAMODB_ENDPOINT,
      });
      await createTable(db);
      return db;
    };
    const { rows } = await measureScale(tableFor, [5, 300]);
    // Requests and write units are deterministic; DynamoDB Local's read units of one Query vary between
    // runs under load, so the bench (not this test) compares them with a unit of slack.
    for (const operation of new Set(rows.map((r) => r.operation))) {
      const [small, large] = rows.filter((r) => r.operation === operation);
      expect({ requests: large?.requests, writeUnits: large?.writeUnits }, operation).toEqual({
        requests: small?.requests,
        writeUnits: small?.writeUnits,
      });
    }
    const at = (operation: string, size: number) =>
      rows.find((r) => r.operation.startsWith(operation) && r.size === size);
    for (const size of [5, 300]) {
      // One range Query per shard, 8 key-expiry buckets, and per quiet KPI its Query and its mark.
      expect(at('alert check', size)).toMatchObject({
        requests: INDEX_SHARDS + 8 + 2 * DUE_AT_EVERY_SIZE,
        itemsRead: DUE_AT_EVERY_SIZE,
      });
      // One range Query per shard and one claim per due slot.
      expect(at('scheduler pass', size)).toMatchObject({
        requests: INDEX_SHARDS + DUE_AT_EVERY_SIZE,
        itemsRead: DUE_AT_EVERY_SIZE,
      });
    }
  });
});
