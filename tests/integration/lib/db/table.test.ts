import { describe, expect, it } from 'vitest';
import { createDatabase } from '../../../../lib/db/client';
import { waitForDynamoDb } from '../../../../lib/db/table';
import { db } from '../../../support/fixtures';

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
      maxAttempts: 1,
    });
    let attempts = 0;
    nowhere.client.use((next) => (request) => {
      attempts++;
      return next(request);
    });
    try {
      const error = await waitForDynamoDb(nowhere, 700).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toBe('DynamoDB did not answer in time');
      expect(error?.cause).toMatchObject({ code: 'ECONNREFUSED' });
      // One try every 200 ms within 700 ms: several, not one and not hundreds.
      expect(attempts).toBeGreaterThanOrEqual(2);
      expect(attempts).toBeLessThanOrEqual(6);
    } finally {
      nowhere.client.destroy();
    }
  });
});
