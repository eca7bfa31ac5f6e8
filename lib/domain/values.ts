import * as z from 'zod/mini';

/** Value types every entity shares; each entity module builds on them. */

/** Ids are UUIDv7 (lib/ids.ts), so lists sorted by id are in creation order. */
export const id = z.uuid();

/** An instant, always written by `toISOString` (UTC, milliseconds), so instants also compare as strings. */
export const timestamp = z.iso.datetime({ offset: true });

/** A calendar date, `YYYY-MM-DD`. */
export const calendarDate = z.iso.date();

/**
 * A property that is a named schema, described where it is used: described directly, the schema would
 * be a second one with the same name (zod copies a schema's metadata to a refined copy), so the
 * property refers to it lazily and carries its own description.
 */
export const describedRef = <T extends z.core.$ZodType>(schema: T, description: string) =>
  z.lazy(() => schema).check(z.describe(description));
