import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createDatabase } from '../../lib/db/client';
import { createTable } from '../../scripts/local/table';

/**
 * Runs before each integration test file is imported, so `lib/runtime.ts` (which reads the
 * environment once, like a Lambda cold start) sees a fresh table of this file's own.
 */
const tableName = `test-${randomBytes(6).toString('hex')}`;
Object.assign(process.env, {
  TABLE_NAME: tableName,
  DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
  AWS_REGION: 'eu-central-1',
  JWT_SECRET: randomBytes(32).toString('base64url'),
  SECRETS_KEY: randomBytes(32).toString('base64url'),
  SECRET_SCANNING_KEYS_URL: inject('secretScanningKeysUrl'),
  // As the local stack: webhooks may be sent to this machine over http, through the local queue.
  STAGE: 'local',
});

await createTable(
  createDatabase({ tableName, region: 'eu-central-1', endpoint: inject('dynamodbEndpoint') }),
);
