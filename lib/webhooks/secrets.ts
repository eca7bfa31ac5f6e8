import { randomBytes } from 'node:crypto';
import type { SecretSource } from '../auth/jwt-secret';
import { createSeal, type Seal } from '../crypto/seal';

/**
 * Webhook signing secrets, in the Standard Webhooks format: `whsec_` and the base64 of 32 random
 * bytes (the specification asks for 24 to 64). The raw secret is in the creation's answer only; the
 * table holds it sealed (AES-256-GCM, lib/crypto/seal.ts) under a key of its own derived from the JWT
 * key, bound to its tenant and endpoint, so a sealed secret copied to another endpoint does not open.
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export const secretBinding = (tenantId: string, endpointId: string) =>
  `webhook-secret:${tenantId}:${endpointId}`;

export const createWebhookSecretSeal = (secret: SecretSource): Seal =>
  createSeal(secret, { label: 'strategy-service webhook secret v1', version: 'w1.' });
