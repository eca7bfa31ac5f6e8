import type { GivenMeasurement } from '../../lib/push/measurement-schema';

/**
 * One batch to POST /integrations/push/measurements/batch, with these retry rules:
 * - 429: wait `Retry-After` (the service always sends it), then try again;
 * - 502, 503, 504 and network errors (including a request timeout): exponential backoff with full
 *   jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"), at least `Retry-After` when sent;
 * - any other status is final: another 4xx cannot succeed by repeating it, and a 500 is a server bug.
 * Retrying is safe because a push is idempotent per KPI and period. Bounded by `maxTries` per batch and
 * by the run's `deadline`: a wait that would end after it is not started.
 */

export const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
export const BACKOFF_BASE_MS = 1000;
export const BACKOFF_CAP_MS = 30_000;
export const REQUEST_TIMEOUT_MS = 30_000;

/** Full jitter: uniformly random in [0, min(cap, base · 2^(failures − 1))). */
export const backoffDelay = (failures: number, random: () => number = Math.random): number =>
  Math.floor(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (failures - 1)));

/** RFC 9110 §10.2.3: delay-seconds or an HTTP-date; undefined when absent or unreadable. */
export const retryAfterMs = (value: string | null, now: number): number | undefined => {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  errors?: { path: string; message: string }[];
  missingKpiIds?: string[];
  requestId?: string;
}

export type BatchOutcome =
  | { kind: 'stored'; status: number; results: ('created' | 'updated' | 'unknown')[]; attempts: number }
  | { kind: 'rejected'; status: number; problem: Problem | undefined; attempts: number }
  | { kind: 'gave-up'; reason: string; attempts: number };

export interface SendOptions {
  /** Base URL including `/api`, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  dryRun: boolean;
  maxTries: number;
  /** Epoch ms after which no retry wait is started. */
  deadline: number;
  userAgent: string;
  /** Told about every attempt and wait (`--verbose`); never given the key. */
  log: (message: string) => void;
  /** Called before each retry wait. */
  onRetry: () => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const readJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The cause of a failed fetch, for the log: `ECONNRESET`, `TimeoutError`, … */
const networkReason = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? (error as Error).name ?? 'network error';
};

export const sendBatch = async (
  options: SendOptions,
  measurements: GivenMeasurement[],
): Promise<BatchOutcome> => {
  const { sleep = defaultSleep, now = Date.now, random = Math.random } = options;
  const url = `${options.baseUrl}/integrations/push/measurements/batch${options.dryRun ? '?dryRun=true' : ''}`;
  const body = JSON.stringify({ measurements });
  for (let attempt = 1; ; attempt++) {
    let reason: string;
    let waitMs: number;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'x-api-key': options.apiKey,
          'Content-Type': 'application/json',
          Accept: 'application/json, application/problem+json',
          'User-Agent': options.userAgent,
        },
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      options.log(`POST ${url} (${measurements.length} rows), attempt ${attempt}: ${response.status}`);
      if (response.ok) {
        const items = (readJson(text) as { items?: { status?: string }[] } | undefined)?.items;
        return {
          kind: 'stored',
          status: response.status,
          results: measurements.map((_, i) => {
            const status = items?.[i]?.status;
            return status === 'created' || status === 'updated' ? status : 'unknown';
          }),
          attempts: attempt,
        };
      }
      if (!RETRYABLE_STATUSES.has(response.status)) {
        return {
          kind: 'rejected',
          status: response.status,
          problem: readJson(text) as Problem | undefined,
          attempts: attempt,
        };
      }
      reason = `${response.status}`;
      const retryAfter = retryAfterMs(response.headers.get('retry-after'), now());
      waitMs =
        response.status === 429
          ? (retryAfter ?? backoffDelay(attempt, random))
          : Math.max(retryAfter ?? 0, backoffDelay(attempt, random));
    } catch (error) {
      reason = networkReason(error);
      options.log(`POST ${url} (${measurements.length} rows), attempt ${attempt}: ${reason}`);
      waitMs = backoffDelay(attempt, random);
    }
    if (attempt >= options.maxTries) {
      return { kind: 'gave-up', reason: `${reason} after ${attempt} tries`, attempts: attempt };
    }
    if (now() + waitMs > options.deadline) {
      return { kind: 'gave-up', reason: `${reason}; the next try would pass --max-time`, attempts: attempt };
    }
    options.log(`retrying in ${(waitMs / 1000).toFixed(1)} s`);
    options.onRetry();
    await sleep(waitMs);
  }
};
