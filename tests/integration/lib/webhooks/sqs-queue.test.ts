import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_VISIBILITY_SECONDS, sqsQueue } from '../../../../lib/webhooks/queue';

/**
 * The SQS adapter through the AWS SDK's own client, against a local HTTP server that answers SQS's
 * JSON protocol (SQS does not run here). The SDK sends a request to the host of its QueueUrl, so the
 * queue's URL names the server; what the test asserts is what SQS would receive.
 */
interface Received {
  target: string;
  body: Record<string, unknown>;
}
/** The credential scope of each request's SigV4 signature: SQS refuses one of another region. */
const scopes: string[] = [];

let server: Server;
let queueUrl: string;
const received: Received[] = [];
let failNext = false;

const readBody = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    const target = String(request.headers['x-amz-target']);
    received.push({ target, body });
    scopes.push(String(request.headers.authorization).match(/Credential=local\/\d{8}\/([^,]+),/)?.[1] ?? '');
    response.setHeader('Content-Type', 'application/x-amz-json-1.0');
    if (failNext) {
      failNext = false;
      response.statusCode = 400;
      response.setHeader('x-amzn-query-error', 'AWS.SimpleQueueService.NonExistentQueue;Sender');
      response.end(
        JSON.stringify({
          __type: 'com.amazonaws.sqs#QueueDoesNotExist',
          message: 'The queue does not exist.',
        }),
      );
      return;
    }
    // SendMessage's answer carries the MD5 of the body, which the SDK checks.
    const answer =
      target === 'AmazonSQS.SendMessage'
        ? {
            MessageId: 'b8c1a2d3-0000-4000-8000-000000000001',
            MD5OfMessageBody: createHash('md5').update(String(body.MessageBody)).digest('hex'),
          }
        : {};
    response.end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  queueUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/123456789012/webhook-deliveries`;
  // The SDK's credential chain needs some; SQS here is the local server, which checks none.
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
  // The SDK warns that the QueueUrl's host differs from the region's endpoint, which is the point.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterEach(() => {
  received.length = 0;
});

// Not the region of the test's environment, so the adapter's own region is what signs.
const queue = () => sqsQueue({ url: queueUrl, region: 'ap-southeast-2' });

describe('the SQS queue adapter', () => {
  it('sends a message to its queue at once when no delay is given, signed for its region', async () => {
    await queue().send('{"deliveryId":"d1"}');
    expect(scopes.at(-1)).toBe('ap-southeast-2/sqs/aws4_request');
    expect(received).toEqual([
      {
        target: 'AmazonSQS.SendMessage',
        body: { QueueUrl: queueUrl, MessageBody: '{"deliveryId":"d1"}', DelaySeconds: 0 },
      },
    ]);
  });

  it('sends a delayed message with its delay, at most SQS’s 15 minutes', async () => {
    await queue().send('a', 900);
    await queue().send('b', 901);
    expect(received.map(({ body }) => body.DelaySeconds)).toEqual([900, 900]);
    await queue().send('c', 60);
    expect(received.at(-1)?.body.DelaySeconds).toBe(60);
  });

  it('makes a received message visible again after the wait, at most SQS’s 12 hours', async () => {
    await queue().retryLater('receipt-1', 600);
    await queue().retryLater('receipt-2', MAX_VISIBILITY_SECONDS + 1);
    expect(received).toEqual([
      {
        target: 'AmazonSQS.ChangeMessageVisibility',
        body: { QueueUrl: queueUrl, ReceiptHandle: 'receipt-1', VisibilityTimeout: 600 },
      },
      {
        target: 'AmazonSQS.ChangeMessageVisibility',
        body: { QueueUrl: queueUrl, ReceiptHandle: 'receipt-2', VisibilityTimeout: 12 * 3600 },
      },
    ]);
    expect(MAX_VISIBILITY_SECONDS).toBe(43_200);
  });

  it('rejects when SQS refuses, so the caller does not take the message as sent', async () => {
    failNext = true;
    await expect(queue().send('x')).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
    failNext = true;
    await expect(queue().retryLater('r', 5)).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
  });
});
