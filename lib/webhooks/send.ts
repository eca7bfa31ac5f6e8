import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import type { DeliveryAttempt } from '../domain/webhook';

/**
 * One attempt of a delivery: a POST of the body, signed by the `standardwebhooks` package (headers
 * `webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body`). Only a 2xx answer is a success; redirects are not followed (a 3xx is a
 * failure: the endpoint's URL is the one to change); an attempt gets ATTEMPT_TIMEOUT_MS.
 */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface AttemptRequest {
  url: string;
  /** The delivery's id: the `webhook-id` of every attempt. */
  id: string;
  payload: string;
  /** `whsec_…`; undefined when the stored secret could not be opened. */
  secret: string | undefined;
  attempt: number;
  /** When the attempt is sent (epoch ms): the signed timestamp. */
  at: number;
  timeoutMs?: number;
}

export const isSuccess = (attempt: DeliveryAttempt) =>
  attempt.httpStatus !== null && attempt.httpStatus >= 200 && attempt.httpStatus < 300;

const errorClass = (error: unknown): string =>
  error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
    ? 'timeout'
    : 'connection';

export const sendAttempt = async ({
  url,
  id,
  payload,
  secret,
  attempt,
  at,
  timeoutMs = ATTEMPT_TIMEOUT_MS,
}: AttemptRequest): Promise<DeliveryAttempt> => {
  const record = (durationMs: number, httpStatus: number | null, error: string | null): DeliveryAttempt => ({
    attempt,
    at: new Date(at).toISOString(),
    durationMs: Math.round(durationMs),
    httpStatus,
    error,
  });
  if (secret === undefined) return record(0, null, 'secret');
  const timestamp = new Date(at);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'strategy-service-webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, timestamp, payload),
  };
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: payload,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The answer's body is not read: only the status counts, and an endpoint could send a lot.
    await response.body?.cancel().catch(() => undefined);
    const isRedirect = response.status >= 300 && response.status < 400;
    return record(performance.now() - started, response.status, isRedirect ? 'redirect' : null);
  } catch (error) {
    return record(performance.now() - started, null, errorClass(error));
  }
};
