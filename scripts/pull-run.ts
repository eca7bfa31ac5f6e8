/**
 * `npm run pull:run`: what AWS does every minute, once, against the local stack's table (`npm start`).
 * The scheduler's pass (lib/pull/run.ts; on AWS functions/schedule-pull-integrations.ts) claims every
 * due slot and queues it; then every message of the local pull queue is run once, as the SQS worker
 * (functions/run-pull-integrations.ts) runs them, and the webhook events the runs published (an
 * integration disabled) are delivered as `npm run alerts:run` delivers them. It prints what it did: a
 * line per integration (./local/pull-run-report.ts), or with `--json` one JSON line.
 *
 * Database: TABLE_NAME (default strategy-service-local) at DYNAMODB_ENDPOINT, else DynamoDB Local on
 * DYNAMODB_PORT, else where the running `npm start` put it (its demo record; scripts/local-data.ts
 * `localDynamoDb`), as `npm run alerts:run` finds it. Credentials open with the local stack's secrets key (SECRETS_KEY, else
 * the one `npm start` keeps in the data folder). Requests go through the egress guard with the local
 * stage's rules: this machine is allowed.
 */
import { resolve } from 'node:path';
import { getIntegration } from '../lib/db/pull-integrations';
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
import { type RunLine, reportLines } from './local/pull-run-report';
import { runBesideLocalStack } from './local-data';

const json = process.argv.includes('--json');

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
  const runs: RunLine[] = [];
  for (const message of await queue.receive()) {
    const outcome = await runMessage(deps, message.body);
    await queue.delete(message.receipt);
    if (outcome.kind === 'skipped') {
      runs.push({ skipped: outcome.reason });
      continue;
    }
    const { run } = outcome;
    const integration = await getIntegration(db, run.tenantId, run.integrationId);
    runs.push({
      integrationId: run.integrationId,
      name: integration?.name ?? null,
      outcome: run.outcome,
      httpStatus: run.httpStatus,
      errorClass: run.errorClass,
      error: run.error,
      stored: run.measurementsStored,
    });
  }
  const webhookDeliveries = await drainLocalQueue({
    queue: webhooks,
    deps: { db, secrets: createWebhookSecretSeal({ secretsKey, jwtKey: jwtSecret || secretsKey }), egress },
  });
  const report = { scheduler, runs, webhookDeliveries };
  console.log(json ? JSON.stringify(report) : reportLines(report).join('\n'));
});
