import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import type { DeliveryAttempt } from '../domain/webhook';
import { type Egress, EgressError } from '../egress';

/**
 * One attempt of a delivery: a POST of the body through the egress guard (lib/egress/), signed by the
 * `standardwebhooks` package (headers `webhook-id`, `webhook-timestamp`, `webhook-signature`: `v1,`
 * and the base64 HMAC-SHA256 of `id.timestamp.body`). Only a 2xx answer is a success; redirects are
 * not followed (a 3xx is a failure: the endpoint's URL is the one to change); the answer's body is
 * never read. An attempt gets ATTEMPT_TIMEOUT_MS: every attempt holds a Lambda while it waits, and
 * the functions that send them have a small reserved concurrency (docs/operations.md, "Capacity").
 */
export const ATTEMPT_TIMEOUT_MS = 5000;

export interface AttemptRequest {
  egress: Egress;
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

export const isSuccess = ({ httpStatus }: DeliveryAttempt) =>
  // Stryker disable next-line ConditionalExpression: the null check is for the type; null >= 200 is false too
  httpStatus !== null && httpStatus >= 200 && httpStatus < 300;

export const sendAttempt = async ({
  egress,
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
    // The answer's body is not read (maxBytes 0): only the status counts.
    const response = await egress.send({
      url,
      method: 'POST',
      headers,
      body: payload,
      timeoutMs,
      maxBytes: 0,
    });
    const isRedirect = response.status >= 300 && response.status < 400;
    return record(response.durationMs, response.status, isRedirect ? 'redirect' : null);
  } catch (error) {
    if (!(error instanceof EgressError)) throw error;
    // A refusal carries no duration: how long resolving took would tell something about the name.
    return error.kind === 'refused'
      ? record(0, null, 'refused')
      : record(performance.now() - started, null, error.kind);
  }
};
