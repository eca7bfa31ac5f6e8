import { CredentialsError } from './errors';
import type { Credentials } from './sigv4';

export type { Credentials };
export type CredentialsProvider = () => Promise<Credentials>;

/** Temporary credentials are replaced this long before they expire, as the SDK does (5 minutes). */
const REFRESH_AHEAD_MS = 5 * 60 * 1000;

/**
 * What Lambda provides: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN in the
 * environment, valid for the life of the execution environment.
 */
export const fromEnv = (): CredentialsProvider => async () => {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = process.env;
  if (!accessKeyId || !secretAccessKey) {
    throw new CredentialsError(
      'No AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set.',
    );
  }
  const sessionToken = process.env.AWS_SESSION_TOKEN;
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
};

/**
 * Caches a provider's credentials until shortly before their `expiration` (forever without one);
 * concurrent callers share one refresh. A failing provider surfaces as `CredentialsError`.
 */
export const cachedProvider = (source: Credentials | CredentialsProvider): CredentialsProvider => {
  if (typeof source !== 'function') return async () => source;
  let cached: Credentials | undefined;
  let pending: Promise<Credentials> | undefined;
  return async () => {
    if (cached && (!cached.expiration || cached.expiration.getTime() - REFRESH_AHEAD_MS > Date.now())) {
      return cached;
    }
    pending ??= source()
      .then((credentials) => {
        cached = credentials;
        return credentials;
      })
      .catch((error: unknown) => {
        throw error instanceof CredentialsError
          ? error
          : new CredentialsError('Could not load AWS credentials.', { cause: error });
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
};
