import { AppError } from './errors';

export interface HealthCheckOptions {
  /** Resolves when the dependency answers (lib/db/health.ts `probeTable`). */
  probe: () => Promise<void>;
  /** How long a good answer is reused by this container. */
  ttlSeconds?: number;
  /** A probe slower than this counts as a failure, so a monitor gets its answer in time. */
  timeoutMs?: number;
  now?: () => number;
}

/**
 * GET /health: whether the service can serve requests, which needs its DynamoDB table. A
 * good answer is reused for `ttlSeconds` (10), so however often monitors (or anyone: the endpoint is
 * public) call it, one container reads at most 6 items a minute; a failure is not reused, so recovery
 * shows at the next call. Failures become a plain 503 `service-unavailable`: the cause goes to the log
 * (lib/http/middleware.ts), never to the caller.
 */
export const createHealthCheck = ({
  probe,
  ttlSeconds = 10,
  timeoutMs = 2000,
  now = Date.now,
}: HealthCheckOptions) => {
  let healthyUntil = 0;
  return async (): Promise<void> => {
    if (now() < healthyUntil) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`health probe took longer than ${timeoutMs} ms`)), timeoutMs);
    });
    const probing = probe();
    probing.catch(() => undefined); // a probe that fails after the timeout must not be unhandled
    try {
      await Promise.race([probing, timeout]);
    } catch (cause) {
      throw new AppError('SERVICE_UNAVAILABLE', 'The database does not answer.', {
        headers: { 'Retry-After': String(ttlSeconds) },
        cause,
      });
    } finally {
      clearTimeout(timer);
    }
    healthyUntil = now() + ttlSeconds * 1000;
  };
};
