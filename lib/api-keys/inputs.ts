import * as z from 'zod/mini';
import { MAX_ALLOWED_SOURCES, MAX_SCOPE_KPIS } from '../domain/api-key';
import { ROLL_GRACE_HOURS } from './rules';
import { normalSource } from './sources';

/** What the API key routes accept: their request bodies, each field checked before any read. */

/** An expiration date-time. It must lie in the future: a key born expired is a mistake. */
export const futureInstant = z.pipe(
  z.iso
    .datetime({
      offset: true,
      message: 'expiresAt must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z',
    })
    .check(
      z.refine((value) => {
        const at = Date.parse(value);
        // Stryker disable next-line EqualityOperator: a request cannot name the very millisecond it is checked in
        return Number.isNaN(at) || at > Date.now(); // an unparseable value is reported by the format check
      }, 'expiresAt must be in the future'),
    ),
  z.transform((value: string) => new Date(value).toISOString()),
);

/**
 * A key's KPI scope, 1 to 100 KPI ids, each once. Whether each is a KPI of the tenant is checked when
 * the key is made, in its first round trip (400 naming each index that is not).
 */
export const kpiScopeSchema = z.array(z.uuid({ message: 'must be the UUID of a KPI' })).check(
  z.minLength(1, 'kpiIds must name at least one KPI; omit it (or send null) for every KPI'),
  z.maxLength(MAX_SCOPE_KPIS, `kpiIds may name at most ${MAX_SCOPE_KPIS} KPIs`),
  z.superRefine((ids, context) => {
    const first = new Map<string, number>();
    ids.forEach((id, index) => {
      const seen = first.get(id.toLowerCase());
      if (seen === undefined) {
        first.set(id.toLowerCase(), index);
        return;
      }
      context.addIssue({
        // Stryker disable next-line StringLiteral: the answer names the path and message, not zod's code
        code: 'custom',
        path: [index],
        message: `repeats kpiIds[${seen}]`,
        input: id,
      });
    });
  }),
);

/** A key's name: 1 to 100 characters after trimming, storable as sent. */
export const keyNameSchema = z.string().check(
  z.trim(),
  z.minLength(1, 'name is required'),
  z.maxLength(100, 'name must be at most 100 characters'),
  // A lone UTF-16 surrogate has no UTF-8 form: it could not be stored and read back as sent.
  z.refine((value) => !/\p{Cs}/u.test(value), 'name must be valid Unicode text'),
);

/** A grace period of a roll, in whole hours. */
export const gracePeriodSchema = z
  .number('gracePeriodHours must be a number of hours')
  .check(
    z.int('gracePeriodHours must be a whole number of hours'),
    z.gte(0, 'gracePeriodHours must be at least 0 (0: the old key stops now)'),
    z.lte(ROLL_GRACE_HOURS.max, `gracePeriodHours must be at most ${ROLL_GRACE_HOURS.max} (7 days)`),
  );

/**
 * A key's source allowlist: 1 to 20 addresses or CIDR blocks (./sources.ts), read into their normal
 * form, each once in that form (a repeat names the first). An empty list would be a key that works
 * from nowhere: the answer says to send null for any address, or to revoke the key. Each message
 * quotes the text it refuses, so that a form which sends a list line by line can show which line.
 */
export const allowedSourcesSchema = z.pipe(
  z
    .array(z.string('must be a string').check(z.trim(), z.maxLength(64, 'must be at most 64 characters')))
    .check(
      z.minLength(
        1,
        'allowedSources must name at least one address or block; send null for any address (to stop a key, revoke it)',
      ),
      z.maxLength(MAX_ALLOWED_SOURCES, `allowedSources may name at most ${MAX_ALLOWED_SOURCES} blocks`),
      z.superRefine((texts, context) => {
        const first = new Map<string, number>();
        for (const [index, text] of texts.entries()) {
          const normal = normalSource(text);
          // Stryker disable next-line ConditionalExpression: no text's normal form is undefined in the map; the test is for the types
          const seen = normal === undefined ? undefined : first.get(normal);
          if (normal !== undefined && seen === undefined) {
            first.set(normal, index);
            continue;
          }
          context.addIssue({
            // Stryker disable next-line StringLiteral: the answer names the path and message, not zod's code
            code: 'custom',
            path: [index],
            message:
              normal === undefined
                ? `must be an IPv4 or IPv6 address or CIDR block, e.g. 203.0.113.7 or 203.0.113.0/24, not ${JSON.stringify(text)}`
                : `${JSON.stringify(text)} repeats allowedSources[${seen}] (both are ${normal})`,
            input: text,
          });
        }
      }),
    ),
  z.transform((texts: string[]) => texts.map((text) => normalSource(text) as string)),
);

/** What a request says about `allowedSources`, in the OpenAPI document of both routes that take it. */
export const ALLOWED_SOURCES_INPUT = `The source addresses the key works from: 1 to ${MAX_ALLOWED_SOURCES} IPv4 or IPv6 addresses or CIDR blocks, each once (a bare address is that one address: \`/32\` or \`/128\`). Stored and shown in their normal form: the block's network address, IPv6 in RFC 5952 form, an IPv4-mapped IPv6 block as its IPv4 block. A request from elsewhere is 403 \`source-not-allowed\`.`;
