/**
 * Words and numbers as every page under /platform/ writes them: instants in the user's time zone,
 * calendar dates of the service (measurement periods, usage days) in UTC, and counts with their unit.
 */

export const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
export const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** A calendar date of the service (`YYYY-MM-DD`) is a UTC day: shown as such, not moved into the viewer's time zone. */
export const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** `YYYY-MM-DD` as the instant its UTC day starts, for the UTC formats. */
export const utcDate = (date: string) => new Date(`${date}T00:00:00Z`);

/** "1 key", "3 keys". */
export const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

/**
 * A 429's wait: the seconds of its `Retry-After` (delay-seconds), at least 1; null without one. A page
 * counts them down itself, so its message drops the service's fixed "Try again in 5 seconds."
 */
export const retryAfterSeconds = (header: string | null): number | null => {
  const seconds = header === null || header.trim() === '' ? Number.NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.max(1, Math.ceil(seconds)) : null;
};

/** A problem's detail without its fixed "Try again in N second(s)." (a countdown says it instead). */
export const withoutRetryIn = (detail: string) =>
  detail.replace(/\s*Try again in \d+ seconds?\.\s*$/, '').trim();

/** The countdown's words: "Try again in 3 seconds.", then, at 0, that the action is open again. */
export const retryInText = (seconds: number, action: string) =>
  seconds > 0 ? `Try again in ${plural(seconds, 'second')}.` : `You can ${action} again now.`;
