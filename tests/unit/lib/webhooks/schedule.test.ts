import { describe, expect, it } from 'vitest';
import { MAX_VISIBILITY_SECONDS } from '../../../../lib/webhooks/queue';
import {
  MAX_DELIVERY_ATTEMPTS,
  RETRY_DELAYS_SECONDS,
  retryDelaySeconds,
} from '../../../../lib/webhooks/schedule';
import { createWebhookSecretSeal, newWebhookSecret, secretBinding } from '../../../../lib/webhooks/secrets';

describe('the retry schedule', () => {
  it('is the Standard Webhooks schedule: 8 attempts, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(8);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(retryDelaySeconds)).toEqual([
      5,
      300,
      1800,
      7200,
      18_000,
      36_000,
      36_000,
      undefined,
    ]);
  });

  it('spans more than 24 hours, each wait within what SQS can hide a message for', () => {
    const total = RETRY_DELAYS_SECONDS.reduce((sum, seconds) => sum + seconds, 0);
    expect(total).toBeGreaterThanOrEqual(24 * 3600);
    for (const seconds of RETRY_DELAYS_SECONDS) expect(seconds).toBeLessThanOrEqual(MAX_VISIBILITY_SECONDS);
    // Backoff: no wait shorter than the one before.
    for (let i = 1; i < RETRY_DELAYS_SECONDS.length; i++) {
      expect(RETRY_DELAYS_SECONDS[i]).toBeGreaterThanOrEqual(RETRY_DELAYS_SECONDS[i - 1]!);
    }
  });
});

describe('webhook secrets', () => {
  it('are whsec_ and the base64 of 32 random bytes, each new', () => {
    const secrets = new Set(Array.from({ length: 50 }, newWebhookSecret));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    }
  });

  it('are stored sealed: they open only for their own endpoint, and with a key of the JWT key source', async () => {
    const key = 'a-jwt-key-of-at-least-thirty-two-characters';
    const seal = createWebhookSecretSeal(key);
    const secret = newWebhookSecret();
    const sealed = await seal.seal(secret, secretBinding('t1', 'w1'));
    expect(sealed).not.toContain(secret.slice(6));
    expect(await seal.open(sealed, secretBinding('t1', 'w1'))).toBe(secret);
    expect(await seal.open(sealed, secretBinding('t1', 'w2'))).toBeUndefined();
    expect(await seal.open(sealed, secretBinding('t2', 'w1'))).toBeUndefined();
    // A rotation keeps the old key as a second line: still opens; a key without it does not.
    expect(await createWebhookSecretSeal(`new-${key}\n${key}`).open(sealed, secretBinding('t1', 'w1'))).toBe(
      secret,
    );
    expect(
      await createWebhookSecretSeal(`new-${key}`).open(sealed, secretBinding('t1', 'w1')),
    ).toBeUndefined();
  });
});
