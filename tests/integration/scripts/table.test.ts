import { describe, expect, it } from 'vitest';
import { type Call, recordCalls } from '../../../bench/capacity';
import { createDatabase } from '../../../lib/db/client';
import { waitForDynamoDb } from '../../../scripts/local/table';
import { db } from '../../support/fixtures';

describe('waiting for DynamoDB (npm start, the test setup)', () => {
  it('resolves once the endpoint answers', async () => {
    await expect(waitForDynamoDb(db, 60_000)).resolves.toBeUndefined();
  });

  it('gives up after its timeout with the last failure as the cause, trying again until then', async () => {
    // Nothing listens on port 1: every attempt is refused at once.
    const nowhere = createDatabase({
      tableName: 'none',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:1',
    });
    const calls: Call[] = [];
    recordCalls(nowhere.client, calls);
    try {
      const error = await waitForDynamoDb(nowhere, 1500).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toBe('DynamoDB did not answer in time');
      expect(error?.cause).toMatchObject({ code: 'ECONNREFUSED' });
      // A call (the SDK's own retries included) every 200 ms or so within 1.5 s: several, not one
      // and not hundreds.
      expect(calls.length).toBeGreaterThanOrEqual(2);
      expect(calls.length).toBeLessThanOrEqual(8);
    } finally {
      nowhere.client.destroy();
    }
  });
});
