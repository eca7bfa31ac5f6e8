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
