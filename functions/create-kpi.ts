import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { defineRoute, reply } from '../lib/http/route';
import { kpiInputFields } from '../lib/kpis/inputs';
import { createTenantKpi } from '../lib/kpis/settings';
import { kpiView, kpiViewSchema } from '../lib/kpis/views';
import { CYCLE_ID, KPI_ID, USER_ID } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const { name, type, ...optional } = kpiInputFields;

const createKpiRequestSchema = z
  .strictObject({
    name,
    type,
    ...Object.fromEntries(Object.entries(optional).map(([field, schema]) => [field, z.optional(schema)])),
  } as {
    name: typeof name;
    type: typeof type;
  } & { [F in keyof typeof optional]: z.ZodMiniOptional<(typeof optional)[F]> })
  .check(
    z.meta({
      id: 'CreateKpiRequest',
      description:
        'A new KPI: its name and type, and optionally its unit, description, period, target rule, cadence, cycle and owner.',
    }),
  );

/** POST /kpis (ADMIN, EDITOR): a KPI of the caller's tenant, within its plan's maximum. */
export const route = defineRoute({
  operationId: 'createKpi',
  method: 'post',
  path: '/kpis',
  tag: 'KPIs',
  summary: 'Create a KPI',
  description:
    'ADMIN or EDITOR. `name` (1 to 200 characters) and `type` are required. `period` is `month` unless sent; `direction` `higher_is_better`, `tolerance` 0.1, `cadence` `none` and `graceHours` 1 unless sent. `cycleId` must be a strategic cycle and `ownerId` a user of the tenant, else 400 naming the field. The plan maximum counts live (not archived) KPIs: Free 50, Business 1,000, Enterprise 10,000; past it, 409 `kpi-limit-reached`.',
  auth: 'jwt',
  roles: ['ADMIN', 'EDITOR'],
  body: {
    schema: createKpiRequestSchema,
    examples: {
      minimal: { summary: 'A monthly KPI', value: { name: 'Monthly recurring revenue', type: 'BSC_KPI' } },
      weekly: {
        summary: 'A weekly KPI in a cycle, lower is better',
        value: {
          name: 'Open support tickets',
          type: 'OKR_KEY_RESULT',
          unit: 'tickets',
          period: 'week',
          direction: 'lower_is_better',
          tolerance: 0.05,
          cycleId: CYCLE_ID,
          ownerId: USER_ID,
        },
      },
    },
  },
  responses: {
    201: {
      description: 'Created: the KPI, with its `id` to push to.',
      schema: kpiViewSchema,
      example: {
        id: KPI_ID,
        type: 'OKR_KEY_RESULT',
        name: 'Open support tickets',
        unit: 'tickets',
        cycleId: CYCLE_ID,
        ownerId: USER_ID,
        createdAt: '2026-01-05T08:00:00.000Z',
        period: 'week',
        direction: 'lower_is_better',
        tolerance: 0.05,
        qualitative: false,
        cadence: 'none',
        graceHours: 1,
      },
    },
  },
  errors: ['KPI_LIMIT_REACHED'],
  core: async ({ body, user, audit }) =>
    reply(201, kpiView(await createTenantKpi(db, user.tenantId, body, audit))),
});

/**
 * The tenant (Get, for its plan), then the KPI, the tenant's KPI count, the cycle's count, the owner's
 * and tenant's existence and the audit event, in one transaction.
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['TENANT#'],
    PutItem: ['AUDIT#', 'KPI#'],
    UpdateItem: ['TENANT#'],
    ConditionCheckItem: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
