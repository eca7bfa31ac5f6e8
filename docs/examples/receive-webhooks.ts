import { createServer, type Server } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** What every delivery's body is (Standard Webhooks). */
interface WebhookEvent {
  type: 'kpi.quiet' | 'api_key.expiring' | 'api_key.revoked' | 'api_key.rolled' | 'webhook.test';
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * A receiver for the service's webhooks: `secret` is the endpoint's `whsec_…` secret from the answer
 * to POST /webhooks. It verifies the signature and the timestamp (at most 5 minutes off) on the raw
 * body, answers at once and handles each delivery once.
 */
export const receiveWebhooks = (secret: string, handle: (event: WebhookEvent) => void): Server => {
  const webhook = new Webhook(secret);
  // Deliveries are retried until a 2xx arrives: remember the ids you handled (a table in production).
  const handled = new Set<string>();
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let event: WebhookEvent;
      try {
        event = webhook.verify(body, {
          'webhook-id': String(request.headers['webhook-id']),
          'webhook-timestamp': String(request.headers['webhook-timestamp']),
          'webhook-signature': String(request.headers['webhook-signature']),
        }) as WebhookEvent;
      } catch (error) {
        // Not from the service, altered, or too old: refuse it.
        response.writeHead(error instanceof WebhookVerificationError ? 400 : 500).end();
        return;
      }
      const id = String(request.headers['webhook-id']);
      if (!handled.has(id)) {
        handled.add(id);
        handle(event);
      }
      response.writeHead(204).end();
    });
  });
};

// For example: receiveWebhooks(process.env.WEBHOOK_SECRET ?? '', (event) => console.log(event)).listen(4000);
