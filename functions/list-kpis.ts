import * as z from 'zod/mini';
import { KPI_TYPE_FILTER_BOUNDS } from '../lib/db/kpis';
import { defineDeployment } from '../lib/deployment';
import { KPI_CADENCE_DEFAULTS, KPI_TARGET_DEFAULTS, kpiTypeSchema } from '../lib/domain/kpi';
import { id } from '../lib/domain/values';
import { defineRoute, reply } from '../lib/http/route';
import { namedPageOf, PAGE_NOTE, pageQuerySchema } from '../lib/http/schemas';
import { kpiActivitySchema, MAX_ACTIVITY_PAGE_SIZE } from '../lib/kpis/activity';
import { byChange, changeSchema } from '../lib/kpis/change';
import { listKpisWithActivity, listKpisWithArrivals } from '../lib/kpis/overview';
import { kpiArrivalsShape } from '../lib/kpis/quiet';
import { kpiStatusSchema } from '../lib/kpis/status';
import { kpiView, kpiViewSchema } from '../lib/kpis/views';
import {
  arrivalsExample,
  kpiExample,
  kpiStatusExample,
  measurementRecordExample,
  OKR_ID,
} from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

/**
 * `?type=` narrows the list to one KPI type (spec 2.6); `?include=activity` adds each KPI's newest
 * measurements and its status, which costs up to one more Query per KPI, hence the smaller page maximum.
 */
const kpiListQuerySchema = z
  .extend(pageQuerySchema, {
    type: z.optional(
      z
        .enum(kpiTypeSchema.options, { message: `type must be one of ${kpiTypeSchema.options.join(', ')}` })
        .check(z.describe('Only KPIs of this type.')),
    ),
    cycleId: z.optional(
      id.check(z.describe('Only the KPIs of this strategic cycle (`GET /strategic-cycles`).')),
    ),
    archived: z.optional(
      z
        .enum(['true', 'false'], { message: 'archived must be "true" or "false"' })
        .check(z.describe('`true`: the archived KPIs instead of the live ones (the default, `false`).')),
    ),
    include: z.optional(
      z
        .literal('activity', { message: 'include must be "activity"' })
        .check(
          z.describe(
            '`activity`: add each KPI’s recent measurements and status; `limit` is then at most 100.',
          ),
        ),
    ),
    sort: z.optional(
      z
        .literal('change', { message: 'sort must be "change"' })
        .check(
          z.describe(
            '`change`: the page’s KPIs by their change since the last period, the largest relative change (up or down) first, KPIs without one last. Sorts within the page: `limit` and `cursor` page the list as without it.',
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
    ...kpiArrivalsShape,
    change: changeSchema,
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
    'Each KPI says when a measurement last arrived (`lastMeasurementAt`) and whether it is `quiet`: it has a `cadence` and nothing arrived for the cadence plus `graceHours`. That costs one Query of at most 8 items per KPI.',
    '',
    'The live KPIs are listed by strategic cycle (oldest cycle first, then the KPIs without one), oldest first within each; archived KPIs are left out. `?archived=true` lists the archived ones instead. `?cycleId=` keeps the KPIs of one cycle. Both are key conditions: a page reads what it returns.',
    '',
    `\`?type=\` keeps the KPIs of one type: a filter that reads at most ${KPI_TYPE_FILTER_BOUNDS.perCall * KPI_TYPE_FILTER_BOUNDS.maxCalls} KPIs a page, so a page may hold fewer than \`limit\` (even none) and still have a \`nextCursor\`: follow it until it is absent.`,
    '',
    'Each KPI gives its `change` since the last period: its newest period’s value against the period right before it. `?sort=change` orders the page by it, the largest relative change first; it sorts within the page, since sorting every KPI of the tenant would read them all.',
    '',
    '`?include=activity` adds to each KPI its `activity`: the newest measurement, the values of its last 8 periods and its usual interval; and its `status` against its target. It costs one more Query for a KPI none of whose 8 newest measurements has a target, so `limit` is at most 100 with it.',
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
            items: [
              { ...kpiExample, ...arrivalsExample, change: { previous: 38, absolute: 2, relative: 0.0526 } },
            ],
            nextCursor: 'eyJwayI6IlRFTkFOVCMuLi4ifQ',
          },
        },
        activity: {
          summary: 'With ?include=activity',
          value: {
            items: [
              {
                ...kpiExample,
                ...arrivalsExample,
                change: { previous: 38, absolute: 2, relative: 0.0526 },
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
                  usualIntervalDays: 31,
                },
                status: kpiStatusExample,
              },
              {
                id: OKR_ID,
                type: 'OKR_KEY_RESULT',
                name: 'Deploys per week',
                createdAt: '2026-01-05T08:01:00.000Z',
                period: 'week',
                ...KPI_TARGET_DEFAULTS,
                ...KPI_CADENCE_DEFAULTS,
                lastMeasurementAt: null,
                quiet: false,
                quietSince: null,
                change: null,
                activity: { latest: null, recent: [], usualIntervalDays: null },
                status: { value: 'no_data', measurement: null },
              },
            ],
          },
        },
      },
    },
  },
  errors: [],
  core: async ({ query: { include, type, cycleId, archived, sort, ...page }, user }) => {
    const filter = { type, cycleId, archived: archived === 'true' };
    const result =
      include === 'activity'
        ? await listKpisWithActivity(db, user.tenantId, page, filter, Date.now())
        : await listKpisWithArrivals(db, user.tenantId, page, filter, Date.now());
    const items = sort === 'change' ? byChange(result.items) : result.items;
    return reply(200, { ...result, items: items.map(kpiView) });
  },
});

/**
 * A tenant's KPIs through the index, and each KPI's newest measurements (Query on the table) for
 * its last arrival and, with include=activity, its activity and status.
 */
export const deployment = defineDeployment({
  table: {
    Query: ['KPI#'],
  },
  indexes: ['gsi1'],
});

export const handler = jwtEndpoint(route);
