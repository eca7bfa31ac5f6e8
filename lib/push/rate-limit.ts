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

export const decide = (
  count: number,
  plan: Plan,
  settings: RateLimitSettings,
  start: number,
  nowMs: number,
): RateLimitDecision => {
  const limit = settings.perPlan[plan];
  const reset = Math.max(1, Math.ceil(start + settings.windowSeconds - nowMs / 1000));
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, limit - count)),
    'RateLimit-Reset': String(reset),
  };
  return count <= limit
    ? { admitted: true, headers }
    : { admitted: false, headers: { ...headers, 'Retry-After': String(reset) } };
};
