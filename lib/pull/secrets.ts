import type { SecretSource } from '../crypto/seal';
import { createSeal, type Seal } from '../crypto/seal';
import type { PullAuthView, PullSecrets } from '../domain/pull-integration';
import { originOf } from '../egress/urls';

/**
 * The credentials of a pull integration (a bearer token, a header value, a password, an OAuth client
 * secret) are written once and never shown again: the table holds them as one sealed JSON text
 * (AES-256-GCM, lib/crypto/seal.ts) under the service's secrets key (SECRETS_KEY, on AWS an SSM
 * SecureString of its own, not the JWT key), bound to the tenant, the integration and the destination
 * they were given for (./destination), so sealed credentials copied to another integration, or read
 * for an integration that now points elsewhere, do not open.
 *
 * Texts sealed before the destination was bound (`p1.`) still open for their tenant and integration,
 * so that existing integrations keep running; every change of an integration seals its credentials
 * anew in the current form (`p2.`), and nothing writes the former one.
 */
export interface PullSecretSeal {
  /** Seals (`p2.`) and opens texts bound to the destination. */
  current: Seal;
  /** Opens texts sealed before the destination was bound (`p1.`); never seals. */
  former: Seal;
}

const LABEL = 'strategy-service pull credentials v1';

export const createPullSecretSeal = (secretsKey: SecretSource): PullSecretSeal => ({
  current: createSeal(secretsKey, { label: LABEL, version: 'p2.' }),
  former: createSeal(secretsKey, { label: LABEL, version: 'p1.' }),
});

/** What a sealed text is bound to: whose integration it is and where its credentials go. */
export interface SealedFor {
  tenantId: string;
  id: string;
  url: string;
  auth: PullAuthView;
}

/** What the destination is read from: an authentication as shown, or as a change sends it. */
interface Destined {
  url: string;
  auth: { type: string; tokenUrl?: string; name?: string };
}

/**
 * Where an integration's credentials go: the origin of its URL (which gets the secret, or the OAuth
 * token made with it), the origin of its OAuth token endpoint (which gets the client secret) and the
 * header that carries a header secret. A change of any of them is a new destination: the stored
 * secret does not follow it (./definitions.ts).
 */
export const destinationOf = ({ url, auth }: Destined) => ({
  origin: originOf(url),
  tokenOrigin: auth.type === 'oauth2_client_credentials' ? originOf(auth.tokenUrl ?? '') : null,
  header: auth.type === 'header' ? (auth.name ?? '').toLowerCase() : null,
});

/** The first part of the destination that differs between two definitions, named by its field; or null. */
export const destinationChange = (before: Destined, after: Destined): string | null => {
  const [was, is] = [destinationOf(before), destinationOf(after)];
  if (was.origin !== is.origin) return 'the origin of url';
  if (was.tokenOrigin !== is.tokenOrigin) return 'the origin of auth.tokenUrl';
  if (was.header !== is.header) return 'auth.name';
  return null;
};

export const pullSecretBinding = (integration: SealedFor) => {
  const { origin, tokenOrigin, header } = destinationOf(integration);
  return `pull-credentials:${integration.tenantId}:${integration.id}:${JSON.stringify([origin, tokenOrigin, header])}`;
};

const formerBinding = ({ tenantId, id }: Pick<SealedFor, 'tenantId' | 'id'>) =>
  `pull-credentials:${tenantId}:${id}`;

export const sealSecrets = async (
  seal: PullSecretSeal,
  integration: SealedFor,
  secrets: PullSecrets,
): Promise<string | null> =>
  Object.keys(secrets).length === 0
    ? null
    : seal.current.seal(JSON.stringify(secrets), pullSecretBinding(integration));

/**
 * The credentials, or undefined when the sealed text does not open: another key, altered, or sealed
 * for another integration or another destination.
 */
export const openSecrets = async (
  seal: PullSecretSeal,
  integration: SealedFor,
  sealed: string | null,
): Promise<PullSecrets | undefined> => {
  if (sealed === null) return {};
  const text =
    (await seal.current.open(sealed, pullSecretBinding(integration))) ??
    (await seal.former.open(sealed, formerBinding(integration)));
  return text === undefined ? undefined : (JSON.parse(text) as PullSecrets);
};
