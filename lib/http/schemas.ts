import * as z from 'zod/mini';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../db/pagination';
import { id } from '../domain/values';

/**
 * What the routes share in their declarations: the list envelope and its query, and id path
 * parameters. Descriptions are part of the schemas (zod metadata), so the OpenAPI document takes them
 * from here.
 */

/** Query-string schema of every list endpoint (`?limit=&cursor=`). */
export const pageQuerySchema = z.strictObject({
  limit: z
    ._default(
      z.coerce
        .number()
        .check(
          z.int('limit must be an integer'),
          z.gte(1, 'limit must be at least 1'),
          z.lte(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`),
        ),
      DEFAULT_PAGE_SIZE,
    )
    .check(z.describe(`Page size, 1 to ${MAX_PAGE_SIZE}.`)),
  cursor: z.optional(
    z
      .string()
      .check(
        z.minLength(1),
        z.maxLength(2048),
        z.describe(
          'The `nextCursor` of the previous page: opaque, and valid only for the list (and caller’s tenant) that handed it out.',
        ),
      ),
  ),
});

const NEXT_CURSOR = 'Pass as `cursor` for the next page; absent on the last page.';

/** The list envelope of every collection: without `nextCursor` the list is complete. */
export const pageOf = <T extends z.core.$ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: z.optional(z.string().check(z.describe(NEXT_CURSOR))) });

/** A page schema that the OpenAPI document names. */
export const namedPageOf = <T extends z.core.$ZodType>(item: T, meta: { id: string; description: string }) =>
  pageOf(item).check(z.meta(meta));

/** What every list operation's description says about paging. */
export const PAGE_NOTE =
  'Paged: `?limit=` (default 100) and `?cursor=` from the previous page’s `nextCursor`.';

/**
 * A path parameter that is an id (a UUID). Anything else names nothing and could not be a table key:
 * 400 before any read.
 */
export const idParams = <Name extends string>(name: Name, description: string) =>
  z.strictObject({ [name]: id.check(z.describe(description)) } as Record<Name, typeof id>);

/** `{kpiId}` of the KPI routes. */
export const kpiIdParams = idParams('kpiId', 'The KPI’s `id` (`GET /kpis`). Another tenant’s KPI is 404.');

/** `{id}` of the API key routes. */
export const apiKeyIdParams = idParams('id', 'The API key’s `id`. Another tenant’s key is 404.');

/** A refresh token in a request body: any non-empty text up to a size no token of ours reaches. */
export const refreshTokenField = (description: string) =>
  z.string().check(z.minLength(1, 'refreshToken is required'), z.maxLength(4096), z.describe(description));

/** `{id}` of the user routes. */
export const userIdParams = idParams('id', 'The user’s `id` (`GET /users`). Another tenant’s user is 404.');

/** `{id}` of the webhook routes. */
export const webhookIdParams = idParams(
  'id',
  'The webhook endpoint’s `id`. Another tenant’s endpoint is 404.',
);

/** `{id}` of the pull integration routes. */
export const pullIntegrationIdParams = idParams(
  'id',
  'The pull integration’s `id`. Another tenant’s integration is 404.',
);

/** `{id}` of the strategic cycle routes. */
export const cycleIdParams = idParams(
  'id',
  'The cycle’s `id` (`GET /strategic-cycles`). Another tenant’s cycle is 404.',
);
