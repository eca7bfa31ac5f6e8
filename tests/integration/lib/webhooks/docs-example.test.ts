import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { receiveWebhooks } from '../../../../docs/examples/receive-webhooks';
import { egress } from '../../../../lib/runtime';
import { newWebhookSecret } from '../../../../lib/webhooks/secrets';
import { sendAttempt } from '../../../../lib/webhooks/send';

/**
 * The verification example of docs/integration.md is docs/examples/receive-webhooks.ts (type-checked
 * with the code): the page shows it as it is, and it accepts what the service sends and nothing else.
 */
const root = resolve(__dirname, '..', '..', '..', '..');

describe('docs/integration.md: receiving webhooks', () => {
  it('shows the example file as it is', () => {
    const example = readFileSync(resolve(root, 'docs/examples/receive-webhooks.ts'), 'utf8');
    expect(readFileSync(resolve(root, 'docs/integration.md'), 'utf8')).toContain(
      `\`\`\`ts\n${example}\`\`\``,
    );
  });

  it('accepts a delivery of the service once (a retry is answered, not handled again) and refuses another secret’s', async () => {
    const secret = newWebhookSecret();
    const handled: unknown[] = [];
    const server = receiveWebhooks(secret, (event) => handled.push(event));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const payload = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: {} });
      const delivery = { url, id: 'msg_1', payload, attempt: 1 };
      expect((await sendAttempt({ egress, ...delivery, secret, at: Date.now() })).httpStatus).toBe(204);
      expect(
        (await sendAttempt({ egress, ...delivery, secret, at: Date.now(), attempt: 2 })).httpStatus,
      ).toBe(204);
      expect(handled).toEqual([JSON.parse(payload)]);
      expect(
        (await sendAttempt({ egress, ...delivery, id: 'msg_2', secret: newWebhookSecret(), at: Date.now() }))
          .httpStatus,
      ).toBe(400);
      // A delivery signed an hour ago (a replay) is refused too.
      expect(
        (await sendAttempt({ egress, ...delivery, id: 'msg_3', secret, at: Date.now() - 3600_000 }))
          .httpStatus,
      ).toBe(400);
      expect(handled).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });
});
