import * as z from 'zod/mini';
import { pageQuerySchema } from '../db/pagination';
import type { JsonEvent } from './types';
import { parseInput } from './validation';

/** Spec 2.2. The password is not trimmed or normalized beyond NFC: it is compared as typed. */
export const loginSchema = z.strictObject({
  email: z.email('email must be an e-mail address').check(z.maxLength(254)),
  password: z.string().check(z.minLength(1, 'password is required'), z.maxLength(1024)),
});

/** Spec 2.4. */
export const refreshSchema = z.strictObject({
  refreshToken: z.string().check(z.minLength(1, 'refreshToken is required'), z.maxLength(4096)),
});

/** `?limit=&cursor=` of every list endpoint. */
export const parsePageQuery = (event: Pick<JsonEvent, 'queryStringParameters'>) =>
  parseInput(pageQuerySchema, event.queryStringParameters ?? {}, { what: 'query string' });

/** POST /api-keys. The expiration must lie in the future: a key born expired is a mistake. */
export const createApiKeySchema = z.strictObject({
  name: z.string().check(
    z.trim(),
    z.minLength(1, 'name is required'),
    z.maxLength(100, 'name must be at most 100 characters'),
    // A lone UTF-16 surrogate has no UTF-8 form: it could not be stored and read back as sent.
    z.refine((value) => !/\p{Cs}/u.test(value), 'name must be valid Unicode text'),
  ),
  expiresAt: z.nullish(
    z.pipe(
      z.iso
        .datetime({
          offset: true,
          message: 'expiresAt must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z',
        })
        .check(
          z.refine((value) => {
            const at = Date.parse(value);
            return Number.isNaN(at) || at > Date.now(); // an unparseable value is reported by the format check
          }, 'expiresAt must be in the future'),
        ),
      z.transform((value: string) => new Date(value).toISOString()),
    ),
  ),
});

/** `?dryRun=true|false` of the push endpoints (issue 12); any other query parameter is refused. */
export const pushQuerySchema = z.strictObject({
  dryRun: z.optional(
    z.pipe(
      z.enum(['true', 'false'], { message: 'dryRun must be true or false' }),
      z.transform((value: 'true' | 'false') => value === 'true'),
    ),
  ),
});
