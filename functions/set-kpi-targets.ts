import * as z from 'zod/mini';
import { defineDeployment } from '../lib/deployment';
import { kpiTargetList } from '../lib/domain/kpi';
import { AppError } from '../lib/errors';
import { defineRoute, reply } from '../lib/http/route';
import { kpiIdParams } from '../lib/http/schemas';
import { setKpiTargets } from '../lib/kpis/targets';
import { storableNumber } from '../lib/push/measurement-schema';
import { db, jwtEndpoint } from '../lib/runtime';

/** The most periods one call sets; the page sends at most as many. */
export const MAX_TARGETS_PER_CALL = 100;

const calendarDate = z.iso.date({ message: 'must be a calendar date YYYY-MM-DD, e.g. 2026-02-28' });

const targetSchema = z
  .strictObject({
    periodStart: calendarDate.check(z.describe('First day of one whole period of the KPI, `YYYY-MM-DD`.')),
    periodEnd: calendarDate.check(z.describe('Last day of that period, `YYYY-MM-DD`.')),
    value: z
      .nullable(storableNumber('must be a finite number or null'))
      .check(z.describe('The target for that period; `null` removes it.')),
  })
  .check(z.meta({ id: 'KpiTargetInput', description: 'A target for one whole period of the KPI.' }));

const setTargetsRequestSchema = z
  .strictObject({
    targets: z
      .array(targetSchema)
      .check(
        z.minLength(1, 'send at least one target'),
        z.maxLength(MAX_TARGETS_PER_CALL, `at most ${MAX_TARGETS_PER_CALL} targets per call`),
        z.describe(
          `1 to ${MAX_TARGETS_PER_CALL} targets, each for one whole period of the KPI; periods not sent keep theirs.`,
        ),
      ),
  })
  .check(z.meta({ id: 'SetKpiTargetsRequest', description: 'Targets for periods of the KPI.' }));

const kpiTargetSchema = z
  .object({ periodStart: z.string(), periodEnd: z.string(), value: z.number() })
  .check(z.meta({ id: 'KpiTarget', description: 'The target the KPI holds for one of its periods.' }));

const EXAMPLE = {
  targets: [
    { periodStart: '2026-01-01', periodEnd: '2026-01-31', value: 120 },
    { periodStart: '2026-02-01', periodEnd: '2026-02-28', value: 125 },
  ],
};

/** PUT /kpis/{kpiId}/targets (ADMIN, EDITOR): the KPI's own target for some of its periods, all or none. */
export const route = defineRoute({
  operationId: 'setKpiTargets',
  method: 'put',
  path: '/kpis/{kpiId}/targets',
  tag: 'KPIs',
  summary: 'Set a KPI’s targets',
  description: `ADMIN or EDITOR. 1 to ${MAX_TARGETS_PER_CALL} targets, each for one whole period of the KPI (else 400 naming \`targets[i].periodStart\`, the KPI’s period and the dates expected); \`value: null\` removes that period’s target; periods not sent keep theirs. All or nothing. A measurement measured against no pushed \`target\` is measured against the KPI’s target for its period (the status’s \`targetSource\` says which). A KPI holds targets for at most 400 periods (409 past it). An archived KPI is 409; another tenant’s KPI is 404. Audited as \`kpi.targets_set\`.`,
  auth: 'jwt',
  roles: ['ADMIN', 'EDITOR'],
  pathParams: kpiIdParams,
  body: {
    schema: setTargetsRequestSchema,
    examples: {
      months: { summary: 'Two monthly targets', value: EXAMPLE },
      remove: {
        summary: 'Remove a period’s target',
        value: { targets: [{ periodStart: '2026-01-01', periodEnd: '2026-01-31', value: null }] },
      },
    },
  },
  responses: {
    200: {
      description: 'Every target the KPI holds now, in period order.',
      schema: z
        .object({ targets: z.array(kpiTargetSchema) })
        .check(z.meta({ id: 'KpiTargets', description: 'The targets a KPI holds.' })),
      example: EXAMPLE,
    },
  },
  errors: ['NOT_FOUND', 'KPI_ARCHIVED', 'CONFLICT'],
  core: async ({ params: { kpiId }, body, user, audit }) => {
    const kpi = await setKpiTargets(db, user.tenantId, kpiId, body.targets, audit);
    if (!kpi) throw new AppError('NOT_FOUND', `KPI ${kpiId} not found.`);
    return reply(200, { targets: kpiTargetList(kpi) });
  },
});

/**
 * The KPI as it is (Get, strongly consistent), then the KPI (Update, conditioned on its tenant and on
 * the version read) with its audit event, in one transaction.
 */
export const deployment = defineDeployment({
  table: {
    ConditionCheckItem: ['TENANT#'],
    GetItem: ['KPI#'],
    PutItem: ['AUDIT#'],
    UpdateItem: ['KPI#'],
  },
});

export const handler = jwtEndpoint(route);
