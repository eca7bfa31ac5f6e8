import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { AppError } from '../lib/errors';
import { defineRoute, reply } from '../lib/http/route';
import { kpiIdParams } from '../lib/http/schemas';
import { kpiInputFields } from '../lib/kpis/inputs';
import { updateKpi } from '../lib/kpis/settings';
import { kpiView, kpiViewSchema } from '../lib/kpis/views';
import { CYCLE_ID, KPI_ID } from '../lib/openapi/examples';
import { db, jwtEndpoint } from '../lib/runtime';

const { name, type, qualitative, ...clearable } = kpiInputFields;
const settable = { name, type, qualitative };
const CLEARABLE = ['unit', 'description', 'cycleId', 'ownerId'] as const;

/**
 * What an ADMIN or EDITOR may change of a KPI: any field it was created with, `null` clearing an
 * optional one, and `archived`. At least one field.
 */
const updateKpiRequestSchema = z
  .strictObject({
    ...Object.fromEntries(Object.entries(settable).map(([field, schema]) => [field, z.optional(schema)])),
    ...Object.fromEntries(
      Object.entries(clearable).map(([field, schema]) => [
        field,
        (CLEARABLE as readonly string[]).includes(field)
          ? z.optional(z.nullable(schema).check(z.describe('As in `POST /kpis`; `null` clears it.')))
          : z.optional(schema),
      ]),
    ),
    archived: z.optional(
      z
        .boolean('archived must be true or false')
        .check(z.describe('`true` archives the KPI (as DELETE does); `false` restores it.')),
    ),
  } as { [F in keyof typeof settable]: z.ZodMiniOptional<(typeof settable)[F]> } & {
    [F in Exclude<keyof typeof clearable, (typeof CLEARABLE)[number]>]: z.ZodMiniOptional<
      (typeof clearable)[F]
    >;
  } & {
    [F in (typeof CLEARABLE)[number]]: z.ZodMiniOptional<z.ZodMiniNullable<(typeof clearable)[F]>>;
  } & { archived: z.ZodMiniOptional<z.ZodMiniBoolean> })
  .check(
    z.refine((body) => Object.values(body).some((value) => value !== undefined), {
      message: `send at least one of ${[...Object.keys(kpiInputFields), 'archived'].join(', ')}`,
    }),
    z.meta({
      id: 'UpdateKpiRequest',
      description:
        'The KPI’s fields to change; fields not sent stay as they are, `null` clears an optional one.',
    }),
  );

/** PATCH /kpis/{kpiId} (ADMIN, EDITOR): any field of a KPI, its archived state included. */
export const route = defineRoute({
  operationId: 'updateKpi',
  method: 'patch',
  path: '/kpis/{kpiId}',
  tag: 'KPIs',
  summary: 'Change a KPI',
  description:
    'ADMIN or EDITOR. Any field `POST /kpis` takes, and `archived` (`false` restores an archived KPI, within the plan maximum: 409 `kpi-limit-reached` past it). `unit`, `description`, `cycleId` and `ownerId` take `null` to clear them; `cycleId` must be a cycle and `ownerId` a user of the tenant, else 400 naming the field. A change of `period` or `type` applies to what is written from then on; stored measurements keep theirs. `direction` (`higher_is_better` or `lower_is_better`), `tolerance` (the share of the target within which a miss is `at_risk` rather than `off_track`, 0 to 1), `qualitative` (no status at all), `cadence` (`daily`, `weekly`, `monthly` or `none`: how often measurements are expected) and `graceHours` (how late they may be, 0 to 720). A KPI with a cadence is quiet when nothing arrived for the cadence plus the grace hours, and its tenant’s webhooks get `kpi.quiet` once per quiet spell. Another tenant’s KPI is 404.',
  auth: 'jwt',
  roles: ['ADMIN', 'EDITOR'],
  pathParams: kpiIdParams,
  body: {
    schema: updateKpiRequestSchema,
    examples: {
      lower: {
        summary: 'Lower is better, 5 % tolerance',
        value: { direction: 'lower_is_better', tolerance: 0.05 },
      },
      qualitative: { summary: 'A qualitative KPI', value: { qualitative: true } },
      cadence: {
        summary: 'Expected daily, 3 hours late at most',
        value: { cadence: 'daily', graceHours: 3 },
      },
      cycle: { summary: 'Move to a cycle, weekly', value: { cycleId: CYCLE_ID, period: 'week' } },
      restore: { summary: 'Restore an archived KPI', value: { archived: false } },
    },
  },
  responses: {
    200: {
      description: 'The KPI as it is now.',
      schema: kpiViewSchema.check(z.meta({ id: 'Kpi', description: 'A KPI of the caller’s tenant.' })),
      example: {
        id: KPI_ID,
        type: 'BSC_KPI',
        name: 'Churned customers',
        createdAt: '2026-01-05T08:00:00.000Z',
        period: 'month',
        direction: 'lower_is_better',
        tolerance: 0.05,
        qualitative: false,
        cadence: 'none',
        graceHours: 1,
      },
    },
  },
  errors: ['NOT_FOUND', 'KPI_LIMIT_REACHED'],
  core: async ({ params: { kpiId }, body, user, audit }) => {
    const kpi = await updateKpi(db, user.tenantId, kpiId, body, audit);
    if (!kpi) throw new AppError('NOT_FOUND', `KPI ${kpiId} not found.`);
    return reply(200, kpiView(kpi));
  },
});

/**
 * The KPI as it is (Get, strongly consistent; the tenant's plan for a restore), then the KPI (Update,
 * conditioned on its tenant and on the version read) with its audit event, the cycles' and the
 * tenant's counts and the owner's existence, in one transaction.
 */
export const deployment = defineDeployment({
  table: {
    GetItem: ['KPI#', 'TENANT#'],
    PutItem: ['AUDIT#'],
    UpdateItem: ['KPI#', 'TENANT#'],
    ConditionCheckItem: ['TENANT#'],
  },
});

export const handler = jwtEndpoint(route);
