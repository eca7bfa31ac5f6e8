import { logger } from '../logger';

/** Where the token service gets its key text: the text itself, or a function that reads it. */
export type SecretSource = string | (() => Promise<string>);

export interface SsmSecretOptions {
  /** Name of the SSM SecureString parameter, e.g. `/strategy-service/prod/jwt-secret`. */
  name: string;
  region: string;
  /** A container re-reads the parameter after this long, so a rotation reaches it without a deploy. */
  maxAgeSeconds: number;
  /** Only for tests, which run a local SSM endpoint; on AWS the SDK's regional endpoint is used. */
  endpoint?: string | undefined;
  now?: () => number;
}

/**
 * Issue 14: the JWT key comes from an SSM SecureString, decrypted by SSM with KMS, never from the
 * environment (which anyone with `lambda:GetFunctionConfiguration` can read).
 *
 * Read at the first request of a container (its cold start) and cached for `maxAgeSeconds`; concurrent
 * callers share one read. A failed re-read keeps the cached key (logged as a warning), so a throttled
 * SSM never fails a warm container; a failed first read fails the request (503 when SSM throttles).
 *
 * `@aws-sdk/client-ssm` (in the Lambda runtime, not in the bundle) is imported here lazily: requiring it
 * costs about 150 ms (measured, README), which only the first JWT request of a container pays, and the
 * push functions and the pages never load it. Powertools Parameters does the same read but adds 10.6 KB
 * to every JWT function's bundle, past the benchmark's 100 KB budget (README "Operations").
 */
export const ssmSecret = ({ name, region, maxAgeSeconds, endpoint, now = Date.now }: SsmSecretOptions) => {
  let cached: { value: string; readAt: number } | undefined;
  let pending: Promise<string> | undefined;
  let send: ((name: string) => Promise<{ Type?: string; Value?: string } | undefined>) | undefined;

  const read = async (): Promise<string> => {
    // Stryker disable next-line ConditionalExpression: a client made anew per read reads the same value
    if (!send) {
      const { SSMClient, GetParameterCommand } = await import('@aws-sdk/client-ssm');
      const client = new SSMClient({
        region,
        maxAttempts: 3,
        // Stryker disable next-line StringLiteral: a local endpoint checks no signature
        ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
      });
      send = async (Name) =>
        (await client.send(new GetParameterCommand({ Name, WithDecryption: true }))).Parameter;
    }
    const parameter = await send(name);
    // A `String` would mean the key is stored in plain text: refuse it loudly instead of using it.
    if (parameter?.Type !== 'SecureString' || !parameter.Value) {
      throw new Error(
        `SSM parameter ${name} must be a SecureString (found ${parameter?.Type ?? 'nothing'}).`,
      );
    }
    return parameter.Value;
  };

  return (): Promise<string> => {
    if (cached && now() - cached.readAt < maxAgeSeconds * 1000) return Promise.resolve(cached.value);
    pending ??= read()
      .then(
        (value) => {
          cached = { value, readAt: now() };
          return value;
        },
        (error: unknown) => {
          if (!cached) throw error;
          logger.warn('JWT key re-read failed; using the cached key', error as Error);
          return cached.value;
        },
      )
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
};
