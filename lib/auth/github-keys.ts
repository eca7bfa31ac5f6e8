import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import * as z from 'zod/mini';
import { logger } from '../logger';

/**
 * The public keys GitHub signs its secret-scanning reports with, as it publishes them
 * (`{"public_keys":[{"key_identifier","key","is_current"}]}`, the key as PEM), fetched from a
 * configurable URL and kept per container:
 *
 * - for `maxAgeSeconds` (one hour): GitHub rotates rarely, and a key it withdraws is gone from here
 *   within the hour;
 * - a report signed by a key identifier the list does not hold fetches the list again at once (GitHub
 *   has rotated), but at most once per `refetchIntervalSeconds` (one minute), so reports with forged
 *   identifiers cannot make the service hammer GitHub; until then the identifier is unknown;
 * - concurrent requests share one fetch, which gives up after `timeoutMs` (3 s); a failed fetch keeps
 *   the list it had and is tried again after the same minute. With no list at all, `keyFor` throws
 *   `KeysUnavailable` (the endpoint answers 503): the report cannot be judged, and is not forged either.
 *
 * Every published key is used, current or not: GitHub may still sign with a key that is no longer
 * current during a rotation.
 */
const publicKeysSchema = z.object({
  public_keys: z.array(z.object({ key_identifier: z.string(), key: z.string() })),
});

export interface GithubKeyOptions {
  url: string;
  maxAgeSeconds?: number;
  refetchIntervalSeconds?: number;
  timeoutMs?: number;
  /** The clock, injectable for tests of the cache's ages. */
  now?: () => number;
}

export interface GithubKeys {
  /** The key of an identifier; undefined when GitHub publishes none by that identifier. */
  keyFor: (identifier: string) => Promise<KeyObject | undefined>;
}

/** Parses the published list; a key that does not parse as a public key is left out (and logged). */
const toKeys = (body: unknown): Map<string, KeyObject> => {
  const { public_keys } = publicKeysSchema.parse(body);
  const keys = new Map<string, KeyObject>();
  for (const { key_identifier, key } of public_keys) {
    try {
      keys.set(key_identifier, createPublicKey(key));
    } catch {
      logger.warn('secret scanning: a published key does not parse', { keyIdentifier: key_identifier });
    }
  }
  return keys;
};

export const createGithubKeys = ({
  url,
  maxAgeSeconds = 3600,
  refetchIntervalSeconds = 60,
  timeoutMs = 3000,
  now = Date.now,
}: GithubKeyOptions): GithubKeys => {
  let keys: Map<string, KeyObject> | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<void> | undefined;

  /** Never rejects: a failed fetch keeps the list there was, and is tried again after the interval. */
  const fetchKeys = async () => {
    fetchedAt = now();
    try {
      const response = await fetch(url, {
        headers: { Accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      keys = toKeys(await response.json());
    } catch (error) {
      logger.warn('secret scanning: the public keys could not be fetched', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };

  return {
    keyFor: async (identifier) => {
      const age = now() - fetchedAt;
      const wanted = !keys || age >= maxAgeSeconds * 1000 || !keys.has(identifier);
      if (!pending && wanted && age >= refetchIntervalSeconds * 1000) {
        pending = fetchKeys().finally(() => {
          pending = undefined;
        });
      }
      // A request that arrives while a fetch is under way waits for it: it may bring this identifier.
      await pending;
      if (!keys) throw new KeysUnavailable();
      return keys.get(identifier);
    },
  };
};

/** GitHub's keys could not be fetched, and none were fetched before: the service cannot judge a report. */
export class KeysUnavailable extends Error {
  override name = 'KeysUnavailable';
  constructor() {
    super("GitHub's secret-scanning public keys are unavailable.");
  }
}

/** ECDSA P-256 with SHA-256 over the raw bytes; the signature is ASN.1 DER, as GitHub sends it. */
export const isSignedBy = (key: KeyObject, body: Buffer, signature: Buffer): boolean => {
  try {
    return verify('sha256', body, { key, dsaEncoding: 'der' }, signature);
  } catch {
    // A signature that is not DER, or a key of another type: not a valid signature either way.
    return false;
  }
};
