import type { Plan } from '../domain/plan';

export interface RateLimitSettings {
  windowSeconds: number;
  perPlan: Record<Plan, number>;
}

export interface RateLimitDecision {
  admitted: boolean;
  /** RateLimit-* response fields (draft-ietf-httpapi-ratelimit-headers), plus Retry-After when refused (RFC 9110 §10.2.3). */
  headers: Record<string, string>;
}

/** Start of the fixed window containing `nowMs`, in epoch seconds. */
export const windowStart = (nowMs: number, windowSeconds: number): number =>
  Math.floor(nowMs / 1000 / windowSeconds) * windowSeconds;

/**
 * The decision on a request counted at `countedAtMs`, the instant whose window its count went to.
 * `RateLimit-Reset` is measured from that same instant, whenever the decision is made: it is
 * 1 to `windowSeconds` and the counted window ends within the second after `countedAtMs + Reset`, so
 * a client that knows when it sent the request and when the answer came attributes the answer to the
 * window the service counted it in (docs/api.md, "Rate limits"), even when the answer comes after
 * that window has ended.
 */
export const decide = (
  count: number,
  plan: Plan,
  settings: RateLimitSettings,
  countedAtMs: number,
): RateLimitDecision => {
  const limit = settings.perPlan[plan];
  const end = windowStart(countedAtMs, settings.windowSeconds) + settings.windowSeconds;
  const reset = Math.ceil(end - countedAtMs / 1000);
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, limit - count)),
    'RateLimit-Reset': String(reset),
  };
  return count <= limit
    ? { admitted: true, headers }
    : { admitted: false, headers: { ...headers, 'Retry-After': String(reset) } };
};
