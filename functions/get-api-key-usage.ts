import * as z from 'zod/mini';
import { emptyDay as day, keyUsage, MAX_USAGE_DAYS } from '../lib/api-keys/usage';
import { seesKeySources, sourceFields, withoutSource } from '../lib/api-keys/views';
import { defineDeployment } from '../lib/deployment';
import { refusedSchema, usageDaySchema } from '../lib/domain/api-key-usage';
import { calendarDate, timestamp } from '../lib/domain/values';
import { defineRoute, reply } from '../lib/http/route';
import { apiKeyIdParams } from '../lib/http/schemas';
import { KEY_ID } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const DAY_MS = 86_400_000;
const daysBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;

/** `?from=&to=`, both optional: the last 30 days by default, at most 90, checked after the defaults. */
const usageQuerySchema = z
  .pipe(
    z.strictObject({
      from: z.optional(
        z.iso
          .date({ message: 'from must be a calendar date YYYY-MM-DD' })
          .check(z.describe('First day, `YYYY-MM-DD` (UTC). Default: 29 days before `to`.')),
      ),
      to: z.optional(
        z.iso
          .date({ message: 'to must be a calendar date YYYY-MM-DD' })
          .check(z.describe('Last day, `YYYY-MM-DD` (UTC). Default: today.')),
      ),
    }),
    z.transform(({ from, to }) => {
      const last = to ?? new Date().toISOString().slice(0, 10);
      return { from: from ?? new Date(Date.parse(last) - 29 * DAY_MS).toISOString().slice(0, 10), to: last };
    }),
  )
  .check(
    z.refine((query) => query.from <= query.to, { message: 'from must not be after to', path: ['from'] }),
    z.refine((query) => daysBetween(query.from, query.to) <= MAX_USAGE_DAYS, {
      message: `at most ${MAX_USAGE_DAYS} days per request`,
      path: ['from'],
    }),
  );

/** Where the last request refused for its source came from: ADMIN only, as every source field. */
const refusedSourceField = (what: string) => ({
  lastRefusedSourceIp: z
    .nullable(z.string())
    .check(
      z.describe(
        `Where ${what} refused for its source came from (403 \`source-not-allowed\`), as API Gateway saw it. ADMIN only: \`null\` for other roles.`,
      ),
    ),
});

/** A day as the route shows it: its source fields are ADMIN only. */
const usageDayViewSchema = z
  .safeExtend(usageDaySchema, {
    ...sourceFields('the day’s last request'),
    ...refusedSourceField('the day’s last request'),
  })
  .check(
    z.meta({
      id: 'ApiKeyUsageDay',
      description: 'One UTC day of a key’s use; a day without requests is all zero.',
    }),
  );

const keyUsageSchema = z
  .object({
    keyId: z.string(),
    from: calendarDate,
    to: calendarDate,
    days: z.array(usageDayViewSchema).check(z.describe('Every day from `from` to `to`, oldest first.')),
    totals: z.object({
      requests: z.int(),
      accepted: z.int(),
      measurements: z.int(),
      refused: refusedSchema,
      lastRequestAt: z.nullable(timestamp),
      ...sourceFields('the last request'),
      ...refusedSourceField('the last request'),
    }),
  })
  .check(z.meta({ id: 'ApiKeyUsage', description: 'How a key was used, day by day, and in total.' }));

/**
 * GET /api-keys/{id}/usage (every role): what a key did, day by day; where it was used from for ADMINs
 * only (lib/api-keys/views.ts `sourceFields`). Another tenant's key is 404.
 */
export const route = defineRoute({
  operationId: 'getApiKeyUsage',
  method: 'get',
  path: '/api-keys/{id}/usage',
  tag: 'API keys',
  summary: 'Show how a key is used',
  description: `Every role. One row per UTC day from \`from\` to \`to\` (at most ${MAX_USAGE_DAYS} days; default the last 30), with the requests counted against the key’s rate limit, the successful pushes and their measurements, the refusals by reason, the day’s first and last request and, for ADMINs only, where the last one came from (\`lastSourceIp\`, \`lastUserAgent\`) and where the last one refused for its source came from (\`lastRefusedSourceIp\`), all \`null\` for other roles; and the totals. Usage is kept ${MAX_USAGE_DAYS} days. Refusals are counted once the key is known: a request without a key, or with a malformed or unknown one, counts nowhere.`,
  auth: 'jwt',
  pathParams: apiKeyIdParams,
  query: usageQuerySchema,
  responses: {
    200: {
      description: 'The key’s usage.',
      schema: keyUsageSchema,
      example: {
        keyId: KEY_ID,
        from: '2026-11-24',
        to: '2026-11-25',
        days: [
          day('2026-11-24'),
          {
            ...day('2026-11-25'),
            requests: 26,
            accepted: 24,
            measurements: 120,
            refused: { authentication: 0, source: 1, scope: 0, rateLimit: 0, validation: 2, featureOff: 0 },
            firstRequestAt: '2026-11-25T02:00:00.118Z',
            lastRequestAt: '2026-11-25T09:10:04.552Z',
            lastUsedAt: '2026-11-25T09:10:04.552Z',
            lastSourceIp: '203.0.113.7',
            lastUserAgent: 'kpi-push/0.2.0',
            lastRefusedSourceIp: '198.51.100.23',
          },
        ],
        totals: {
          requests: 26,
          accepted: 24,
          measurements: 120,
          refused: { authentication: 0, source: 1, scope: 0, rateLimit: 0, validation: 2, featureOff: 0 },
          lastRequestAt: '2026-11-25T09:10:04.552Z',
          lastSourceIp: '203.0.113.7',
          lastUserAgent: 'kpi-push/0.2.0',
          lastRefusedSourceIp: '198.51.100.23',
        },
      },
    },
  },
  errors: ['NOT_FOUND'],
  core: async ({ params: { id }, query, user }) => {
    const usage = await keyUsage(db, user.tenantId, id, query);
    if (seesKeySources(user.role)) return reply(200, usage);
    return reply(200, { ...usage, days: usage.days.map(withoutSource), totals: withoutSource(usage.totals) });
  },
});

/**
 * The key by id (Query on the index), its days of usage (Query on the table).
 */
export const deployment = defineDeployment({
  table: {
    Query: ['APIKEY#'],
  },
  indexes: ['gsi1'],
});

export const handler = jwtEndpoint(route);
