/**
 * When the attempts of a delivery happen: the Standard Webhooks schedule. The first attempt at once,
 * then after each failure 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h: eight attempts over 27 h 35 min,
 * so an endpoint that is down overnight or for a day still gets the event. Each wait is under SQS's
 * 12-hour visibility limit. A delivery that failed all of them disables its endpoint.
 */
export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000] as const;

/** Attempts of one delivery; the queue's maxReceiveCount is the same number. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** The wait before the next attempt after attempt `attempt` (1-based) failed; undefined after the last. */
export const retryDelaySeconds = (attempt: number): number | undefined => RETRY_DELAYS_SECONDS[attempt - 1];
