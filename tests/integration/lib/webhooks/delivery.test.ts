import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as deliverHandler } from '../../../../functions/deliver-webhooks';
import { keys } from '../../../../lib/db/keys';
import { putEndpointDisabled } from '../../../../lib/db/webhooks';
import { auditEvent, systemContext } from '../../../../lib/domain/audit-event';
import { egress, publish, webhookSecrets } from '../../../../lib/runtime';
import { deliverMessage } from '../../../../lib/webhooks/deliver';
import { drainLocalQueue } from '../../../../lib/webhooks/drain';
import type { WebhookEvent } from '../../../../lib/webhooks/events';
import { webhookLocalQueue } from '../../../../lib/webhooks/local-queue';
import { createPublisher } from '../../../../lib/webhooks/publisher';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../../../lib/webhooks/schedule';
import { createWebhookSecretSeal } from '../../../../lib/webhooks/secrets';
import { sendAttempt } from '../../../../lib/webhooks/send';
import {
  createEndpoint,
  listDeliveries,
  listEndpoints,
  type WebhookDeps,
} from '../../../../lib/webhooks/service';
import { freePort } from '../../../../scripts/local/processes';
import { createTestTenant, db } from '../../../support/fixtures';
import { captureOutput } from '../../../support/output';
import { type Receiver, startReceiver } from '../../../support/webhook-receiver';

/**
 * Delivery through the local queue, which behaves as the SQS queue and its redrive policy, with a
 * clock of the test's own: the schedule's waits are asserted on the times the queue and the log
 * record, and passed by moving the clock, never by waiting.
 */
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const quietEvent = (tenantId: string, at: number): WebhookEvent => ({
  type: 'kpi.quiet',
  tenantId,
  occurredAt: new Date(at).toISOString(),
  data: { kpiId: '0193e1a2-3b4c-7d5e-8f60-718293a4b5c6' },
});

/** A tenant with one endpoint at `url`, and the queue, publisher and worker on one clock. */
const setUp = async (url: string, eventTypes: WebhookEvent['type'][] = ['kpi.quiet']) => {
  const clock = { now: Date.now() };
  const now = () => clock.now;
  const { tenant } = await createTestTenant({ kpiTypes: [] });
  const deps: WebhookDeps = { db, secrets: webhookSecrets, local: true, now };
  const endpoint = await createEndpoint(deps, {
    tenantId: tenant.id,
    url,
    eventTypes,
    createdBy: null,
  });
  const queue = webhookLocalQueue(db, now);
  return {
    clock,
    tenantId: tenant.id,
    endpoint,
    publish: createPublisher({ db, queue, now }),
    drain: () => drainLocalQueue({ queue, deps: { db, secrets: webhookSecrets, egress, now } }),
    queue,
    log: async () => (await listDeliveries(db, tenant.id, endpoint.id, { limit: 100 })).items,
  };
};

describe('retries with backoff, then the endpoint is disabled', () => {
  it('tries a receiver answering 500 eight times over more than 24 hours, logs every attempt, disables it once', async () => {
    const hooks = await startReceiver();
    try {
      hooks.answer = { status: 500 };
      const run = await setUp(hooks.url);
      hooks.secret = run.endpoint.secret;
      const started = run.clock.now;
      await run.publish(quietEvent(run.tenantId, started));
      const lines: any[] = [];
      for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
        const sentAt = run.clock.now;
        const drained = await captureOutput(() => run.drain());
        lines.push(...drained.lines);
        expect(drained.result, `attempt ${attempt}`).toEqual({
          received: 1,
          done: attempt === MAX_DELIVERY_ATTEMPTS ? 1 : 0,
          retried: attempt === MAX_DELIVERY_ATTEMPTS ? 0 : 1,
        });
        const [delivery] = await run.log();
        expect(delivery!.attempts).toHaveLength(attempt);
        expect(delivery!.attempts.at(-1)).toMatchObject({
          attempt,
          at: new Date(sentAt).toISOString(),
          httpStatus: 500,
          error: null,
        });
        if (attempt === MAX_DELIVERY_ATTEMPTS) {
          expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
          break;
        }
        const wait = RETRY_DELAYS_SECONDS[attempt - 1]! * 1000;
        expect(delivery).toMatchObject({
          status: 'pending',
          nextAttemptAt: new Date(sentAt + wait).toISOString(),
        });
        // Not a moment before its time: the queue keeps the message hidden until then.
        run.clock.now = sentAt + wait - 1;
        expect(await run.drain()).toEqual({ received: 0, done: 0, retried: 0 });
        run.clock.now = sentAt + wait;
      }
      // Eight requests, one webhook-id, each signed for its own timestamp with the endpoint's secret.
      expect(hooks.received).toHaveLength(MAX_DELIVERY_ATTEMPTS);
      const ids = new Set(hooks.received.map((request) => request.headers['webhook-id']));
      expect(ids.size).toBe(1);
      for (const request of hooks.received) {
        const timestamp = new Date(Number(request.headers['webhook-timestamp']) * 1000);
        expect(request.headers['webhook-signature']).toBe(
          new Webhook(run.endpoint.secret).sign(
            String(request.headers['webhook-id']),
            timestamp,
            request.body,
          ),
        );
      }
      expect(hooks.received[0]!.verified.ok).toBe(true);
      const [delivery] = await run.log();
      const span = Date.parse(delivery!.attempts.at(-1)!.at) - Date.parse(delivery!.attempts[0]!.at);
      expect(span).toBeGreaterThanOrEqual(24 * 3600 * 1000);
      expect(span).toBe(RETRY_DELAYS_SECONDS.reduce((sum, seconds) => sum + seconds, 0) * 1000);
      // Disabled, said once in the audit log, and nothing left in the queue or its dead-letter queue.
      const [endpoint] = await listEndpoints(db, run.tenantId);
      expect(endpoint).toMatchObject({ status: 'disabled', disabledAt: delivery!.attempts.at(-1)!.at });
      expect(endpoint!.disabledReason).toContain(delivery!.id);
      const audits = lines.filter((line) => line.audit === 'webhook.disabled');
      expect(audits).toHaveLength(1);
      expect(audits[0]).toMatchObject({
        webhookId: run.endpoint.id,
        deliveryId: delivery!.id,
        lastHttpStatus: 500,
      });
      run.clock.now += 86_400_000;
      expect(await run.drain()).toEqual({ received: 0, done: 0, retried: 0 });
      expect(await run.queue.deadLetters()).toEqual([]);
      // A disabled endpoint gets no new deliveries.
      await run.publish(quietEvent(run.tenantId, run.clock.now));
      expect(await run.log()).toHaveLength(1);
      expect(await run.drain()).toEqual({ received: 0, done: 0, retried: 0 });
      expect(hooks.received).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    } finally {
      await hooks.close();
    }
  });

  it('stops at the first 2xx: no further attempt, the endpoint stays active', async () => {
    const hooks = await startReceiver();
    try {
      hooks.answer = { status: 503 };
      const run = await setUp(hooks.url);
      await run.publish(quietEvent(run.tenantId, run.clock.now));
      await run.drain();
      hooks.answer = { status: 200 };
      run.clock.now += RETRY_DELAYS_SECONDS[0] * 1000;
      expect(await run.drain()).toEqual({ received: 1, done: 1, retried: 0 });
      const [delivery] = await run.log();
      expect(delivery).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
      expect(delivery!.attempts.map((a) => a.httpStatus)).toEqual([503, 200]);
      run.clock.now += 86_400_000;
      expect(await run.drain()).toEqual({ received: 0, done: 0, retried: 0 });
      expect((await listEndpoints(db, run.tenantId))[0]!.status).toBe('active');
    } finally {
      await hooks.close();
    }
  });

  it('ends pending deliveries of a disabled endpoint without sending them', async () => {
    const run = await setUp(receiver.url);
    await run.publish(quietEvent(run.tenantId, run.clock.now));
    await putEndpointDisabled(
      db,
      run.tenantId,
      run.endpoint.id,
      new Date(run.clock.now).toISOString(),
      'test',
      auditEvent(systemContext('test'), {
        type: 'webhook.disabled',
        tenantId: run.tenantId,
        target: { type: 'webhook', id: run.endpoint.id },
      }),
    );
    const before = receiver.received.length;
    expect(await run.drain()).toEqual({ received: 1, done: 1, retried: 0 });
    expect(receiver.received).toHaveLength(before);
    expect(await run.log()).toMatchObject([{ status: 'failed', attempts: [], nextAttemptAt: null }]);
  });

  it('keeps a delivery in the log for 30 days, and a delayed message hidden for its delay', async () => {
    const {
      clock,
      tenantId,
      endpoint,
      publish: publishNow,
      queue,
      log,
      drain,
    } = await setUp(`${receiver.url}/ok`);
    const at = clock.now;
    await publishNow(quietEvent(tenantId, at));
    const [delivery] = await log();
    const { Item } = await db.client.send(
      new GetCommand({ TableName: db.tableName, Key: keys.webhookDelivery(endpoint.id, delivery!.id) }),
    );
    expect(Item!.ttl).toBe(Math.floor(at / 1000) + 30 * 86_400);
    await queue.send('{"later":true}', 90);
    const { Items = [] } = await db.client.send(
      new QueryCommand({
        TableName: db.tableName,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'body = :body',
        ExpressionAttributeValues: {
          ':pk': keys.queueMessage('webhook-deliveries', '').pk,
          ':body': '{"later":true}',
        },
      }),
    );
    expect(Items.map((item) => item.visibleAt)).toEqual([at + 90_000]);
    // The queue is the file's: both messages leave it (the second names no delivery and is dropped).
    clock.now = at + 90_000;
    expect((await drain()).received).toBeGreaterThanOrEqual(2);
  });

  it('drops a message that names no delivery instead of retrying it, and logs it', async () => {
    const { result: outcome, lines } = await captureOutput(() =>
      deliverMessage({ db, secrets: webhookSecrets, egress }, '{"not":"a delivery"}', 1),
    );
    expect(outcome).toEqual({ kind: 'done' });
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'ERROR',
        message: 'A webhook queue message that names no delivery was dropped.',
      }),
    );
    expect(await deliverMessage({ db, secrets: webhookSecrets, egress }, 'not json', 3)).toEqual({
      kind: 'done',
    });
  });

  it('takes a message whose delivery is gone (its log expired) as done, sending nothing', async () => {
    const run = await setUp(receiver.url);
    const before = receiver.received.length;
    const gone = JSON.stringify({
      tenantId: run.tenantId,
      endpointId: run.endpoint.id,
      deliveryId: '0193e1a2-3b4c-7d5e-8f60-000000000000',
    });
    expect(await deliverMessage({ db, secrets: webhookSecrets, egress }, gone, 2)).toEqual({ kind: 'done' });
    expect(receiver.received).toHaveLength(before);
  });

  it('publishes nothing to a deleted endpoint that was subscribed', async () => {
    const run = await setUp(receiver.url);
    const { deleteEndpoint } = await import('../../../../lib/webhooks/service');
    await deleteEndpoint(db, run.tenantId, run.endpoint.id);
    await run.publish(quietEvent(run.tenantId, run.clock.now));
    expect(await run.drain()).toEqual({ received: 0, done: 0, retried: 0 });
  });

  it('sends a delivery once when the queue hands its message out again after it succeeded', async () => {
    const run = await setUp(receiver.url);
    receiver.secret = run.endpoint.secret;
    await run.publish(quietEvent(run.tenantId, run.clock.now));
    expect(await run.drain()).toEqual({ received: 1, done: 1, retried: 0 });
    const [delivery] = await run.log();
    const before = receiver.received.length;
    const again = JSON.stringify({
      tenantId: run.tenantId,
      endpointId: run.endpoint.id,
      deliveryId: delivery!.id,
    });
    expect(await deliverMessage({ db, secrets: webhookSecrets, egress }, again, 2)).toEqual({ kind: 'done' });
    expect(receiver.received).toHaveLength(before);
    expect((await run.log())[0]).toEqual(delivery);
  });

  it('ends pending deliveries of a deleted endpoint without sending them', async () => {
    const run = await setUp(receiver.url);
    await run.publish(quietEvent(run.tenantId, run.clock.now));
    const { deleteEndpoint } = await import('../../../../lib/webhooks/service');
    const before = receiver.received.length;
    await deleteEndpoint(db, run.tenantId, run.endpoint.id);
    expect(await run.drain()).toEqual({ received: 1, done: 1, retried: 0 });
    expect(receiver.received).toHaveLength(before);
  });
});

describe('the local queue', () => {
  it('hides a received message for the visibility timeout and moves it to the dead-letter queue after the last receipt', async () => {
    const clock = { now: Date.now() };
    const queue = webhookLocalQueue(db, () => clock.now);
    // A queue of its own would need another name; this one is drained of what other tests left first.
    for (const message of await queue.receive()) await queue.delete(message.receipt);
    clock.now += 3600_000;
    for (const message of await queue.receive()) await queue.delete(message.receipt);
    await queue.send('{"poison":true}');
    for (let receipt = 1; receipt <= MAX_DELIVERY_ATTEMPTS; receipt++) {
      const received = await queue.receive();
      expect(received.map((m) => [m.body, m.receiveCount])).toEqual([['{"poison":true}', receipt]]);
      expect(await queue.receive()).toEqual([]);
      clock.now += 360_000;
    }
    expect(await queue.receive()).toEqual([]);
    expect(await queue.deadLetters()).toContain('{"poison":true}');
  });
});

describe('the SQS worker (functions/deliver-webhooks.ts)', () => {
  const context = { functionName: 'deliverWebhooks', awsRequestId: 'r' } as Context;
  const sqsEvent = (
    records: { id: string; body: string; receipt: string; receiveCount: number }[],
  ): SQSEvent => ({
    Records: records.map(({ id, body, receipt, receiveCount }) => ({
      messageId: id,
      receiptHandle: receipt,
      body,
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: '0',
        SenderId: 'x',
        ApproximateFirstReceiveTimestamp: '0',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:eu-central-1:123456789012:strategy-service-test-webhook-deliveries',
      awsRegion: 'eu-central-1',
    })),
  });

  it('reports a failed attempt as a batch item failure after setting its visibility to the next wait; a success as done', async () => {
    const hooks = await startReceiver();
    try {
      hooks.answer = { status: 500 };
      const { tenant } = await createTestTenant({ kpiTypes: [] });
      const deps: WebhookDeps = { db, secrets: webhookSecrets, local: true };
      await createEndpoint(deps, {
        tenantId: tenant.id,
        url: hooks.url,
        eventTypes: ['kpi.quiet'],
        createdBy: null,
      });
      const queue = webhookLocalQueue(db);
      await publish(quietEvent(tenant.id, Date.now()));
      const mine = (await queue.receive()).filter((m) => m.body.includes(tenant.id));
      expect(mine).toHaveLength(1);
      const [message] = mine as [(typeof mine)[number]];
      const before = Date.now();
      const failed = await deliverHandler(
        sqsEvent([{ id: 'm1', body: message.body, receipt: message.receipt, receiveCount: 1 }]),
        context,
      );
      expect(failed).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
      const { Item } = await db.client.send(
        new GetCommand({
          TableName: db.tableName,
          Key: keys.queueMessage('webhook-deliveries', message.receipt),
        }),
      );
      expect(Item!.visibleAt).toBeGreaterThanOrEqual(before + RETRY_DELAYS_SECONDS[0] * 1000);
      hooks.answer = { status: 204 };
      const done = await deliverHandler(
        sqsEvent([{ id: 'm1', body: message.body, receipt: message.receipt, receiveCount: 2 }]),
        context,
      );
      expect(done).toEqual({ batchItemFailures: [] });
      expect(hooks.received.map((r) => r.headers['webhook-id'])).toEqual([
        hooks.received[0]!.headers['webhook-id'],
        hooks.received[0]!.headers['webhook-id'],
      ]);
    } finally {
      await hooks.close();
    }
  });
});

describe('one attempt', () => {
  const base = {
    id: 'msg_1',
    payload: '{}',
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1FTqRMpVuG4=',
    attempt: 1,
  };

  it('gives up on an endpoint that does not answer within the timeout: error "timeout"', async () => {
    const server = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await sendAttempt({
        egress,
        ...base,
        url: `http://127.0.0.1:${port}/`,
        at: Date.now(),
        timeoutMs: 200,
      });
      expect(result).toMatchObject({ httpStatus: null, error: 'timeout' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('records a refused connection as error "connection"', async () => {
    const port = await freePort();
    const result = await sendAttempt({ egress, ...base, url: `http://127.0.0.1:${port}/`, at: Date.now() });
    expect(result).toMatchObject({ httpStatus: null, error: 'connection' });
  });

  it('sends nothing when the stored secret does not open (sealed under another key): error "secret"', async () => {
    const run = await setUp(receiver.url);
    const before = receiver.received.length;
    await run.publish(quietEvent(run.tenantId, run.clock.now));
    const otherKey = createWebhookSecretSeal({
      secretsKey: 'another-secrets-key-of-at-least-32-characters!',
      jwtKey: 'another-jwt-key-of-at-least-32-characters!',
    });
    const queue = run.queue;
    await drainLocalQueue({ queue, deps: { db, secrets: otherKey, egress, now: () => run.clock.now } });
    expect(receiver.received).toHaveLength(before);
    const [delivery] = await run.log();
    expect(delivery!.attempts).toEqual([expect.objectContaining({ httpStatus: null, error: 'secret' })]);
  });
});
