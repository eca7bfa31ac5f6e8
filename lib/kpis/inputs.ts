import * as z from 'zod/mini';
import {
  graceHoursSchema,
  kpiCadenceSchema,
  kpiDescriptionSchema,
  kpiDirectionSchema,
  kpiNameSchema,
  kpiSchema,
  kpiTypeSchema,
  kpiUnitSchema,
} from '../domain/kpi';
import { KPI_PERIODS } from '../domain/period';
import { id } from '../domain/values';

/**
 * The fields a tenant's ADMIN or EDITOR sets on a KPI, as `POST /kpis` and `PATCH /kpis/{kpiId}` take
 * them: one declaration, so that both routes name the same rules in their problems.
 */
export const kpiInputFields = {
  name: kpiNameSchema.check(z.describe('1 to 200 characters after trimming.')),
  type: z
    .enum(kpiTypeSchema.options, { message: `type must be one of ${kpiTypeSchema.options.join(', ')}` })
    .check(z.describe('The KPI type: the `kpiType` pushes name.')),
  unit: kpiUnitSchema.check(z.describe('Unit of the values, at most 50 characters.')),
  description: kpiDescriptionSchema.check(z.describe('What the KPI measures, at most 2000 characters.')),
  period: z
    .enum(KPI_PERIODS, { message: `period must be one of ${KPI_PERIODS.join(', ')}` })
    .check(
      z.describe(
        'The span one measurement stands for: `day`, `week` (ISO, Monday to Sunday), `month` (the default), `quarter` or `year`.',
      ),
    ),
  direction: kpiDirectionSchema.check(z.describe('`higher_is_better` (the default) or `lower_is_better`.')),
  tolerance: z
    .number('tolerance must be a number')
    .check(
      z.gte(0, 'tolerance must be at least 0'),
      z.lte(1, 'tolerance must be at most 1 (100 % of the target)'),
      z.describe('The share of the target within which a miss is at risk, 0 to 1.'),
    ),
  qualitative: kpiSchema.shape.qualitative,
  cadence: kpiCadenceSchema.check(
    z.describe('How often measurements are expected: `daily`, `weekly`, `monthly` or `none`.'),
  ),
  graceHours: graceHoursSchema.check(z.describe('How late a measurement may be, 0 to 720 hours.')),
  cycleId: id.check(z.describe('A strategic cycle of the tenant (`GET /strategic-cycles`).')),
  ownerId: id.check(z.describe('A user of the tenant who owns the KPI.')),
};
