/**
 * `npm run alerts:run`: what AWS does on a schedule and on a queue, run once against the local stack's
 * table (`npm start`). First the alert check (lib/alerts/check.ts; on AWS functions/check-alerts.ts,
 * every 15 minutes) publishes quiet KPIs and expiring keys; then every message of the local delivery
 * queue that is due now is delivered once (one attempt each, retries scheduled as the SQS worker
 * schedules them). On AWS the delivery worker (functions/deliver-webhooks.ts) does this for each
 * message SQS hands it.
 *
 * Database: TABLE_NAME (default strategy-service-local) at DYNAMODB_ENDPOINT, else DynamoDB Local on
 * DYNAMODB_PORT, else where the running `npm start` put it (its demo record; scripts/local-data.ts
 * `localDynamoDb`). The webhook secrets open with the local stack's secrets key (SECRETS_KEY, else the
 * one `npm start` keeps in the data folder), those sealed before it with its signing key (JWT_SECRET,
 * else the data folder's).
 */
import { resolve } from 'node:path';
import { runAlertCheck } from '../lib/alerts/check';
import { createDatabase } from '../lib/db/client';
import { createEgress } from '../lib/egress';
import { drainLocalQueue } from '../lib/webhooks/drain';
import { webhookLocalQueue } from '../lib/webhooks/local-queue';
import { createPublisher } from '../lib/webhooks/publisher';
import { createWebhookSecretSeal } from '../lib/webhooks/secrets';
import {
  localData,
  localDynamoDb,
  storedJwtSecret,
  storedSecretsKey,
  unreachableDynamoDb,
} from './local-data';

const root = resolve(__dirname, '..');
const dynamoDb = localDynamoDb(root, process.env);

const main = async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const env = process.env;
  const db = createDatabase({
    tableName: env.TABLE_NAME || 'strategy-service-local',
    region: env.AWS_REGION || 'eu-central-1',
    endpoint: dynamoDb.endpoint,
  });
  const data = localData(root, env);
  const secret = env.JWT_SECRET || storedJwtSecret(data);
  if (!secret) throw new Error('No signing key: set JWT_SECRET, or run npm start once to make one.');
  const secretsKey = env.SECRETS_KEY || storedSecretsKey(data);
  if (!secretsKey) throw new Error('No secrets key: set SECRETS_KEY, or run npm start once to make one.');
  const queue = webhookLocalQueue(db);
  const check = await runAlertCheck({ db, publish: createPublisher({ db, queue }), now: Date.now() });
  const result = await drainLocalQueue({
    queue,
    // The local stage's egress rules: endpoints on this machine are reachable.
    deps: {
      db,
      secrets: createWebhookSecretSeal({ secretsKey, jwtKey: secret }),
      egress: createEgress({ allowLoopback: true }),
    },
  });
  db.client.destroy();
  console.log(JSON.stringify({ check, ...result }));
  if (check.failed > 0) process.exitCode = 1;
};

main().catch((error) => {
  const refused = (error as { code?: string }).code === 'ECONNREFUSED';
  console.error(refused ? unreachableDynamoDb(dynamoDb) : error instanceof Error ? error.message : error);
  process.exit(1);
});
