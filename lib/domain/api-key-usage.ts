import * as z from 'zod/mini';
import { calendarDate, timestamp } from './values';

/** Why a request of a known key was refused, as its day counts it. */
export const USAGE_REFUSALS = [
  'authentication',
  'source',
  'scope',
  'rateLimit',
  'validation',
  'featureOff',
] as const;
export type UsageRefusal = (typeof USAGE_REFUSALS)[number];

export const refusedSchema = z
  .object({
    authentication: z.int(),
    source: z.int(),
    scope: z.int(),
    rateLimit: z.int(),
    validation: z.int(),
    featureOff: z.int(),
  } satisfies Record<UsageRefusal, z.ZodMiniInt>)
  .check(
    z.describe(
      'Refused requests of the key by reason: `authentication` (revoked or expired key, inactive organization), `source` (from an address outside the key’s `allowedSources`), `scope` (a KPI outside the key’s scope), `rateLimit`, `validation` (an invalid body or query, or a KPI that is not the organization’s), `featureOff` (a plan without push).',
    ),
  );

/**
 * One UTC day of an API key's use (lib/db/api-key-usage.ts): counted by the push path in the updates it
 * makes anyway, and shown by `GET /api-keys/{id}/usage` as it is. A day without requests has no item.
 */
export const usageDaySchema = z
  .object({
    date: calendarDate,
    requests: z.int().check(z.describe('Requests with the key counted against its rate limit.')),
    accepted: z.int().check(z.describe('Successful pushes (dry runs excluded).')),
    measurements: z.int().check(z.describe('Measurements stored by those pushes.')),
    refused: refusedSchema,
    firstRequestAt: z.nullable(timestamp),
    lastRequestAt: z.nullable(timestamp),
    lastUsedAt: z.nullable(timestamp).check(z.describe('The day’s last successful request.')),
    lastSourceIp: z
      .nullable(z.string())
      .check(z.describe('Where the day’s last request came from, as API Gateway saw it.')),
    lastUserAgent: z.nullable(z.string()).check(z.describe('Its User-Agent, at most 200 characters.')),
    lastRefusedSourceIp: z
      .nullable(z.string())
      .check(
        z.describe('Where the day’s last request refused for its source came from (a `source` refusal).'),
      ),
  })
  .check(z.describe('One UTC day of a key’s use; a day without requests is all zero.'));
export type UsageDay = z.output<typeof usageDaySchema>;
