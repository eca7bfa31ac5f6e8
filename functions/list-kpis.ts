import * as z from 'zod/mini';
import { listKpis } from '../lib/db/kpis';
import { KPI_TARGET_DEFAULTS, kpiTypeSchema } from '../lib/domain/kpi';
import { defineRoute, reply } from '../lib/http/route';
import { namedPageOf, PAGE_NOTE, pageQuerySchema } from '../lib/http/schemas';
import { kpiActivitySchema, MAX_ACTIVITY_PAGE_SIZE } from '../lib/kpis/activity';
import { listKpisWithActivity } from '../lib/kpis/overview';
import { kpiStatusSchema } from '../lib/kpis/status';
import { kpiView, kpiViewSchema } from '../lib/kpis/views';
import {
  CREATED,
  kpiExample,
  kpiStatusExample,
  measurementRecordExample,
  OKR_ID,
} from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

/**
 * `?type=` narrows the list to one KPI type (spec 2.6); `?include=activity` adds each KPI's newest
 * measurements and its quiet flag, which costs a Query per KPI, hence the smaller page maximum.
 */
const kpiListQuerySchema = z
  .extend(pageQuerySchema, {
    type: z.optional(
      z
        .enum(kpiTypeSchema.options, { message: `type must be one of ${kpiTypeSchema.options.join(', ')}` })
        .check(z.describe('Only KPIs of this type (spec 2.6).')),
    ),
    include: z.optional(
      z
        .literal('activity', { message: 'include must be "activity"' })
        .check(
          z.describe(
            '`activity`: add each KPI’s recent measurements and quiet flag; `limit` is then at most 100.',
          ),
        ),
    ),
  })
  .check(
    z.refine((query) => query.include !== 'activity' || query.limit <= MAX_ACTIVITY_PAGE_SIZE, {
      message: `limit must be at most ${MAX_ACTIVITY_PAGE_SIZE} with include=activity`,
      path: ['limit'],
    }),
  );

/** An item of `GET /kpis`: `activity` only with `?include=activity`. */
const kpiListItemSchema = z
  .extend(kpiViewSchema, {
    activity: z.optional(kpiActivitySchema).check(z.describe('Only with `?include=activity`.')),
    status: z.optional(kpiStatusSchema).check(z.describe('Only with `?include=activity`.')),
  })
  .check(
    z.meta({
      id: 'KpiListItem',
      description: 'A KPI of the caller’s tenant: its `id` and `type` are the `kpiId` and `kpiType` to push.',
    }),
  );

/** GET /kpis: the tenant's KPIs, so users find the `kpiId` and `kpiType` to push. */
export const route = defineRoute({
  operationId: 'listKpis',
  method: 'get',
  path: '/kpis',
  tag: 'KPIs',
  summary: 'List KPIs',
  description: [
    `The caller’s tenant’s KPIs: where to find the \`kpiId\` and \`kpiType\` to push. ${PAGE_NOTE}`,
    '',
    '`?type=` keeps the KPIs of one type (pages are still filled to `limit`). `?include=activity` adds to each KPI its `activity`: the newest measurement, the values of its last 8 periods, when a measurement last arrived, its usual interval and whether it has gone quiet (nothing for more than twice the usual interval, or nothing yet); and its `status` against its target. It costs one Query of at most 8 items per KPI (one more for a KPI none of whose 8 newest measurements has a target), so `limit` is at most 100 with it.',
  ].join('\n'),
  auth: 'jwt',
  query: kpiListQuerySchema,
  responses: {
    200: {
      description: 'One page of KPIs.',
      schema: namedPageOf(kpiListItemSchema, { id: 'KpiPage', description: 'One page, oldest first.' }),
      examples: {
        plain: {
          summary: 'The list',
          value: {
            items: [kpiExample],
            nextCursor: 'eyJwayI6IlRFTkFOVCMuLi4ifQ',
          },
        },
        activity: {
          summary: 'With ?include=activity',
          value: {
            items: [
              {
                ...kpiExample,
                activity: {
                  latest: measurementRecordExample,
                  recent: [
                    {
                      periodStart: '2026-09-01',
                      periodEnd: '2026-09-30',
                      actual: 40,
                      target: 45,
                      forecast: null,
                    },
                    {
                      periodStart: '2026-08-01',
                      periodEnd: '2026-08-31',
                      actual: 38,
                      target: 42,
                      forecast: null,
                    },
                  ],
                  lastReceivedAt: CREATED,
                  usualIntervalDays: 31,
                  quiet: false,
                },
                status: kpiStatusExample,
              },
              {
                id: OKR_ID,
                type: 'OKR_KEY_RESULT',
                name: 'Deploys per week',
                createdAt: '2026-01-05T08:01:00.000Z',
                ...KPI_TARGET_DEFAULTS,
                activity: {
                  latest: null,
                  recent: [],
                  lastReceivedAt: null,
                  usualIntervalDays: null,
                  quiet: true,
                },
                status: { value: 'no_data', measurement: null },
              },
            ],
          },
        },
      },
    },
  },
  errors: [],
  core: async ({ query: { include, type, ...page }, user }) => {
    const result =
      include === 'activity'
        ? await listKpisWithActivity(db, user.tenantId, page, { type }, Date.now())
        : await listKpis(db, user.tenantId, page, { type });
    return reply(200, { ...result, items: result.items.map(kpiView) });
  },
});

export const handler = jwtEndpoint(route);
