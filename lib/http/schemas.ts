import * as z from 'zod/mini';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../db/pagination';
import { KPI_TYPES } from '../domain';
import { AppError } from '../errors';
import { MAX_ACTIVITY_PAGE_SIZE } from '../kpis/activity';
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

/**
 * Query-string schema shared by every list endpoint (`?limit=&cursor=`). Here, not in lib/db: it is the
 * HTTP form of a page request, and a module-level zod schema stays in every bundle that imports its
 * module, which for lib/db/pagination.ts is every function that lists anything (issue 11).
 */
export const pageQuerySchema = z.strictObject({
  limit: z._default(
    z.coerce
      .number()
      .check(
        z.int('limit must be an integer'),
        z.gte(1, 'limit must be at least 1'),
        z.lte(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`),
      ),
    DEFAULT_PAGE_SIZE,
  ),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
});

/** `?limit=&cursor=` of every list endpoint. */
export const parsePageQuery = (event: Pick<JsonEvent, 'queryStringParameters'>) =>
  parseInput(pageQuerySchema, event.queryStringParameters ?? {}, { what: 'query string' });

/**
 * `GET /kpis`: `?type=` narrows the list to one KPI type (spec 2.6); `?include=activity` adds each
 * KPI's newest measurements and its quiet flag (issue 15), which costs a Query per KPI, hence the
 * smaller page maximum.
 */
export const kpiListQuerySchema = z
  .extend(pageQuerySchema, {
    type: z.optional(z.enum(KPI_TYPES, { message: `type must be one of ${KPI_TYPES.join(', ')}` })),
    include: z.optional(z.literal('activity', { message: 'include must be "activity"' })),
  })
  .check(
    z.refine((query) => query.include !== 'activity' || query.limit <= MAX_ACTIVITY_PAGE_SIZE, {
      message: `limit must be at most ${MAX_ACTIVITY_PAGE_SIZE} with include=activity`,
      path: ['limit'],
    }),
  );

export const parseKpiListQuery = (event: Pick<JsonEvent, 'queryStringParameters'>) =>
  parseInput(kpiListQuerySchema, event.queryStringParameters ?? {}, { what: 'query string' });

/**
 * A KPI id from the path. Ids are UUIDs (spec 2.5); anything else names no KPI, so it is 404 without a
 * read (and a key string too long for DynamoDB never reaches it).
 */
export const parseKpiId = (event: Pick<JsonEvent, 'pathParameters'>): string => {
  const kpiId = event.pathParameters?.kpiId ?? '';
  if (!z.safeParse(z.uuid(), kpiId).success) {
    throw new AppError('NOT_FOUND', `KPI ${kpiId.slice(0, 100)} not found.`);
  }
  return kpiId;
};

/** `?dryRun=true|false` of the push endpoints (issue 12); any other query parameter is refused. */
export const pushQuerySchema = z.strictObject({
  dryRun: z.optional(
    z.pipe(
      z.enum(['true', 'false'], { message: 'dryRun must be true or false' }),
      z.transform((value: 'true' | 'false') => value === 'true'),
    ),
  ),
});
