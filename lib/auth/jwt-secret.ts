import type { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { logger } from '../logger';

export interface SsmSecretOptions {
  /** Name of the SSM SecureString parameter, e.g. `/strategy-service/prod/jwt-secret`. */
  name: string;
  region: string;
  /** A container re-reads the parameter after this long, so a rotation reaches it without a deploy. */
  maxAgeSeconds: number;
  /** Only for tests, which run a local SSM endpoint; on AWS the SDK's regional endpoint is used. */
  endpoint?: string | undefined;
}

/**
 * The JWT key comes from an SSM SecureString, decrypted by SSM with KMS, never from the environment
 * (which anyone with `lambda:GetFunctionConfiguration` can read).
 *
 * Powertools Parameters reads it (GetParameter with decryption) and caches it for `maxAgeSeconds`. Two
 * things it leaves to the caller are done here: concurrent callers share one read, and a failed re-read
 * keeps the last key (logged as a warning, never the key), so a throttled SSM never fails a warm
 * container, while a failed first read fails the request.
 *
 * Powertools Parameters and `@aws-sdk/client-ssm` are imported at the first read: the package does not
 * declare itself free of side effects, so a static import would stay in every bundle (all functions load
 * lib/runtime.ts), and requiring the SSM client costs about 150 ms of cold start (docs/performance.md) that the push
 * functions and the pages, which never read the key, would pay too.
 */
export const ssmSecret = ({ name, region, maxAgeSeconds, endpoint }: SsmSecretOptions) => {
  let provider: Promise<SSMProvider> | undefined;
  let last: string | undefined;
  let pending: Promise<string> | undefined;

  const read = async () => {
    provider ??= import('@aws-lambda-powertools/parameters/ssm').then(
      ({ SSMProvider }) =>
        new SSMProvider({
          clientConfig: {
            region,
            maxAttempts: 3,
            ...(endpoint
              ? {
                  endpoint,
                  credentials: {
                    accessKeyId: 'local',
                    // Stryker disable next-line StringLiteral: a local endpoint checks no signature
                    secretAccessKey: 'local',
                  },
                }
              : {}),
          },
        }),
    );
    return (await provider).get(name, { decrypt: true, maxAge: maxAgeSeconds, throwOnMissing: true });
  };

  return (): Promise<string> => {
    pending ??= read()
      .then(
        (value) => {
          last = value;
          return value;
        },
        (error: unknown) => {
          // Powertools wraps the SDK's error; passed on as the SDK threw it, the HTTP layer can tell a
          // throttled SSM (503, retry) from a fault (500).
          const cause = (error as Error).cause ?? error;
          if (last === undefined) throw cause;
          logger.warn('JWT key re-read failed; using the cached key', cause as Error);
          return last;
        },
      )
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
};
