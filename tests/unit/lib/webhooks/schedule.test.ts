import { describe, expect, it } from 'vitest';
import { createSeal } from '../../../../lib/crypto/seal';
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

  it('are stored sealed with the secrets key: they open only for their own endpoint, and never with a key derived from the JWT key', async () => {
    const secretsKey = 'a-secrets-key-of-at-least-thirty-two-characters';
    const jwtKey = 'a-jwt-key-of-at-least-thirty-two-characters';
    const seal = createWebhookSecretSeal({ secretsKey, jwtKey });
    const secret = newWebhookSecret();
    const sealed = await seal.seal(secret, secretBinding('t1', 'w1'));
    expect(sealed).toMatch(/^w2\./);
    expect(sealed).not.toContain(secret.slice(6));
    expect(await seal.open(sealed, secretBinding('t1', 'w1'))).toBe(secret);
    expect(await seal.open(sealed, secretBinding('t1', 'w2'))).toBeUndefined();
    expect(await seal.open(sealed, secretBinding('t2', 'w1'))).toBeUndefined();
    // A rotation keeps the old key as a second line: still opens; a key without it does not.
    const rotated = createWebhookSecretSeal({ secretsKey: `new-${secretsKey}\n${secretsKey}`, jwtKey });
    expect(await rotated.open(sealed, secretBinding('t1', 'w1'))).toBe(secret);
    const lost = createWebhookSecretSeal({ secretsKey: `new-${secretsKey}`, jwtKey });
    expect(await lost.open(sealed, secretBinding('t1', 'w1'))).toBeUndefined();
    // Rotating the JWT key changes nothing for it.
    const newJwt = createWebhookSecretSeal({ secretsKey, jwtKey: `other-${jwtKey}` });
    expect(await newJwt.open(sealed, secretBinding('t1', 'w1'))).toBe(secret);
  });

  it('sealed by an earlier release with the same keys: still open (the seal’s label and version are fixed)', async () => {
    const seal = createWebhookSecretSeal({
      secretsKey: 'a-secrets-key-of-at-least-thirty-two-characters',
      jwtKey: 'a-jwt-key-of-at-least-thirty-two-characters',
    });
    const stored =
      'w2.ugO0zlg8eH6FGtc8OvUp6OBo6yN7kipS4zBB4vQWfcdd7bhGGeAco5go11KwjC9shcI_OemAmp1t1lHf4HmJkUtijuDNytTDDqjmHpyk';
    expect(await seal.open(stored, secretBinding('t1', 'w1'))).toBe(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1FTqRMpVuG4=',
    );
  });

  it('sealed before the secrets key existed (w1., a key derived from the JWT key): still open', async () => {
    const jwtKey = 'a-jwt-key-of-at-least-thirty-two-characters';
    const legacy = createSeal(jwtKey, { label: 'strategy-service webhook secret v1', version: 'w1.' });
    const secret = newWebhookSecret();
    const sealed = await legacy.seal(secret, secretBinding('t1', 'w1'));
    const seal = createWebhookSecretSeal({
      secretsKey: 'a-secrets-key-of-at-least-thirty-two-characters',
      jwtKey,
    });
    expect(await seal.open(sealed, secretBinding('t1', 'w1'))).toBe(secret);
    expect(await seal.open(sealed, secretBinding('t1', 'w2'))).toBeUndefined();
  });
});
