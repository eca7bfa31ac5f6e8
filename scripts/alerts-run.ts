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
import { createEgress } from '../lib/egress';
import { drainLocalQueue } from '../lib/webhooks/drain';
import { webhookLocalQueue } from '../lib/webhooks/local-queue';
import { createPublisher } from '../lib/webhooks/publisher';
import { createWebhookSecretSeal } from '../lib/webhooks/secrets';
import { runBesideLocalStack } from './local-data';

runBesideLocalStack(resolve(__dirname, '..'), async ({ db, secretsKey, jwtSecret }) => {
  if (!jwtSecret) throw new Error('No signing key: set JWT_SECRET, or run npm start once to make one.');
  const queue = webhookLocalQueue(db);
  const check = await runAlertCheck({ db, publish: createPublisher({ db, queue }), now: Date.now() });
  const result = await drainLocalQueue({
    queue,
    // The local stage's egress rules: endpoints on this machine are reachable.
    deps: {
      db,
      secrets: createWebhookSecretSeal({ secretsKey, jwtKey: jwtSecret }),
      egress: createEgress({ allowLoopback: true }),
    },
  });
  console.log(JSON.stringify({ check, ...result }));
  if (check.failed > 0) process.exitCode = 1;
});
