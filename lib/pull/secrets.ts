import type { SecretSource } from '../crypto/seal';
import { createSeal, type Seal } from '../crypto/seal';
import type { PullSecrets } from '../domain/pull-integration';

/**
 * The credentials of a pull integration (a bearer token, a header value, a password, an OAuth client
 * secret) are written once and never shown again: the table holds them as one sealed JSON text
 * (AES-256-GCM, lib/crypto/seal.ts) under the service's secrets key (SECRETS_KEY, on AWS an SSM
 * SecureString of its own, not the JWT key), bound to the tenant and the integration, so sealed
 * credentials copied to another integration do not open.
 */
export const createPullSecretSeal = (secretsKey: SecretSource): Seal =>
  createSeal(secretsKey, { label: 'strategy-service pull credentials v1', version: 'p1.' });

export const pullSecretBinding = (tenantId: string, integrationId: string) =>
  `pull-credentials:${tenantId}:${integrationId}`;

export const sealSecrets = async (
  seal: Seal,
  { tenantId, id }: { tenantId: string; id: string },
  secrets: PullSecrets,
): Promise<string | null> =>
  Object.keys(secrets).length === 0
    ? null
    : seal.seal(JSON.stringify(secrets), pullSecretBinding(tenantId, id));

/** The credentials, or undefined when the sealed text does not open (another key, altered). */
export const openSecrets = async (
  seal: Seal,
  { tenantId, id }: { tenantId: string; id: string },
  sealed: string | null,
): Promise<PullSecrets | undefined> => {
  if (sealed === null) return {};
  const text = await seal.open(sealed, pullSecretBinding(tenantId, id));
  return text === undefined ? undefined : (JSON.parse(text) as PullSecrets);
};
