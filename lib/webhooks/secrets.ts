import { randomBytes } from 'node:crypto';
import type { SecretSource } from '../crypto/seal';
import { createSeal, type Seal } from '../crypto/seal';

/**
 * Webhook signing secrets, in the Standard Webhooks format: `whsec_` and the base64 of 32 random
 * bytes (the specification asks for 24 to 64). The raw secret is in the creation's answer only; the
 * table holds it sealed (AES-256-GCM, lib/crypto/seal.ts), bound to its tenant and endpoint, so a
 * sealed secret copied to another endpoint does not open.
 *
 * The seal's key is the service's secrets key (SECRETS_KEY, on AWS an SSM SecureString of its own),
 * the key that also seals the pull integrations' credentials. Secrets sealed before it existed
 * (`w1.`, with a key derived from the JWT key) still open with that key; every new one is `w2.`.
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export const secretBinding = (tenantId: string, endpointId: string) =>
  `webhook-secret:${tenantId}:${endpointId}`;

const LEGACY_VERSION = 'w1.';

export const createWebhookSecretSeal = ({
  secretsKey,
  jwtKey,
}: {
  secretsKey: SecretSource;
  jwtKey: SecretSource;
}): Seal => {
  const current = createSeal(secretsKey, { label: 'strategy-service webhook secret v2', version: 'w2.' });
  const legacy = createSeal(jwtKey, { label: 'strategy-service webhook secret v1', version: LEGACY_VERSION });
  return {
    seal: (text, binding) => current.seal(text, binding),
    open: (sealed, binding) =>
      sealed.startsWith(LEGACY_VERSION) ? legacy.open(sealed, binding) : current.open(sealed, binding),
  };
};
