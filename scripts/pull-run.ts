/**
 * `npm run pull:run`: what AWS does every minute, once, against the local stack's table (`npm start`).
 * The scheduler's pass (lib/pull/run.ts; on AWS functions/schedule-pull-integrations.ts) claims every
 * due slot and queues it; then every message of the local pull queue is run once, as the SQS worker
 * (functions/run-pull-integrations.ts) runs them, and the webhook events the runs published (an
 * integration disabled) are delivered as `npm run alerts:run` delivers them. It prints what it did, one
 * JSON line.
 *
 * Database: TABLE_NAME (default strategy-service-local) at DYNAMODB_ENDPOINT, else DynamoDB Local on
 * DYNAMODB_PORT, else where the running `npm start` put it (its demo record; scripts/local-data.ts
 * `localDynamoDb`), as `npm run alerts:run` finds it. Credentials open with the local stack's secrets key (SECRETS_KEY, else
 * the one `npm start` keeps in the data folder). Requests go through the egress guard with the local
 * stage's rules: this machine is allowed.
 */
import { resolve } from 'node:path';
import { getTenant } from '../lib/db/tenants';
import { createEgress } from '../lib/egress';
import { createTokenCache } from '../lib/pull/fetch';
import { pullLocalQueue } from '../lib/pull/local-queue';
import { runMessage } from '../lib/pull/run';
import { schedulePass } from '../lib/pull/scheduler';
import { createPullSecretSeal } from '../lib/pull/secrets';
import { createTenantCache } from '../lib/tenant-cache';
import { drainLocalQueue } from '../lib/webhooks/drain';
import { webhookLocalQueue } from '../lib/webhooks/local-queue';
import { createPublisher } from '../lib/webhooks/publisher';
import { createWebhookSecretSeal } from '../lib/webhooks/secrets';
import { runBesideLocalStack } from './local-data';

runBesideLocalStack(resolve(__dirname, '..'), async ({ db, secretsKey, jwtSecret }) => {
  const webhooks = webhookLocalQueue(db);
  // The local stage's egress rules: sources on this machine are reachable.
  const egress = createEgress({ allowLoopback: true });
  const deps = {
    db,
    secrets: createPullSecretSeal(secretsKey),
    egress,
    tokens: createTokenCache(),
    tenants: createTenantCache({ ttlSeconds: 30, load: (id) => getTenant(db, id) }),
    local: true,
    publish: createPublisher({ db, queue: webhooks }),
  };
  const queue = pullLocalQueue(db);
  const scheduler = await schedulePass({ db, queue, now: Date.now() });
  const runs = [];
  for (const message of await queue.receive()) {
    const outcome = await runMessage(deps, message.body);
    await queue.delete(message.receipt);
    runs.push(
      outcome.kind === 'ran'
        ? {
            integrationId: outcome.run.integrationId,
            outcome: outcome.run.outcome,
            httpStatus: outcome.run.httpStatus,
            errorClass: outcome.run.errorClass,
            stored: outcome.run.measurementsStored,
          }
        : { skipped: outcome.reason },
    );
  }
  const webhookDeliveries = await drainLocalQueue({
    queue: webhooks,
    deps: { db, secrets: createWebhookSecretSeal({ secretsKey, jwtKey: jwtSecret || secretsKey }), egress },
  });
  console.log(JSON.stringify({ scheduler, runs, webhookDeliveries }));
});
