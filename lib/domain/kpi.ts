import * as z from 'zod/mini';
import { kpiPeriodSchema } from './period';
import { id, timestamp } from './values';

/** Spec 2.6: the allowed values of `kpiType`. */
export const KpiType = {
  SWOT_KPI: 'SWOT_KPI',
  PESTLE_KPI: 'PESTLE_KPI',
  THEME_KPI: 'THEME_KPI',
  KPI_DEFINITION: 'KPI_DEFINITION',
  BSC_KPI: 'BSC_KPI',
  ASIS_KPI: 'ASIS_KPI',
  OKR_KEY_RESULT: 'OKR_KEY_RESULT',
  PRODUCT_SCORECARD_KPI: 'PRODUCT_SCORECARD_KPI',
} as const;
export type KpiType = (typeof KpiType)[keyof typeof KpiType];
export const KPI_TYPES = Object.values(KpiType) as [KpiType, ...KpiType[]];

export const kpiTypeSchema = z.enum(KPI_TYPES, { message: `must be one of ${KPI_TYPES.join(', ')}` });

/** Which way a KPI improves: whether meeting the target means reaching it from below or from above. */
export const KPI_DIRECTIONS = ['higher_is_better', 'lower_is_better'] as const;
export const kpiDirectionSchema = z.enum(KPI_DIRECTIONS);
export type KpiDirection = z.output<typeof kpiDirectionSchema>;

/** What a KPI is measured against, until someone sets it otherwise. */
export const KPI_TARGET_DEFAULTS = {
  direction: 'higher_is_better',
  tolerance: 0.1,
  qualitative: false,
} as const;

/**
 * How often measurements of a KPI are expected to arrive. `none` (the default) expects nothing, so the
 * KPI is never quiet. A month is 31 days, the longest one, so that a job running on the same day of
 * every month is never quiet between runs.
 */
export const KPI_CADENCES = ['none', 'daily', 'weekly', 'monthly'] as const;
export const kpiCadenceSchema = z.enum(KPI_CADENCES, {
  message: `must be one of ${KPI_CADENCES.join(', ')}`,
});
export type KpiCadence = z.output<typeof kpiCadenceSchema>;

/** The length of each cadence in hours (`none` has none). */
export const CADENCE_HOURS: Record<Exclude<KpiCadence, 'none'>, number> = {
  daily: 24,
  weekly: 7 * 24,
  monthly: 31 * 24,
};

/**
 * How late a measurement may be before its KPI is quiet, in whole hours: 1 by default, so a daily job
 * that runs a few minutes later than yesterday does not raise an alert; at most 720 (30 days).
 */
export const GRACE_HOURS = { default: 1, max: 720 } as const;
export const graceHoursSchema = z
  .int('graceHours must be a whole number of hours')
  .check(
    z.gte(0, 'graceHours must be at least 0'),
    z.lte(GRACE_HOURS.max, `graceHours must be at most ${GRACE_HOURS.max} (30 days)`),
  );

/** A KPI's expected cadence, until someone sets it. */
export const KPI_CADENCE_DEFAULTS = { cadence: 'none', graceHours: GRACE_HOURS.default } as const;

/** A KPI's name: 1 to 200 characters after trimming. */
export const KPI_NAME_MAX = 200;
export const kpiNameSchema = z
  .string('name must be a string')
  .check(
    z.trim(),
    z.minLength(1, 'name must not be empty'),
    z.maxLength(KPI_NAME_MAX, `name must be at most ${KPI_NAME_MAX} characters`),
  );

/** A KPI's unit and description, as a tenant may set them. */
export const kpiUnitSchema = z
  .string('unit must be a string')
  .check(z.trim(), z.maxLength(50, 'unit must be at most 50 characters'));
export const kpiDescriptionSchema = z
  .string('description must be a string')
  .check(z.trim(), z.maxLength(2000, 'description must be at most 2000 characters'));

/** A KPI of a tenant: what measurements are pushed to. Ids are globally unique. */
export const kpiSchema = z.object({
  id,
  tenantId: id,
  type: kpiTypeSchema,
  name: z.string(),
  unit: z.optional(z.string()),
  description: z.optional(z.string().check(z.describe('What the KPI measures, when set.'))),
  cycleId: z.optional(id.check(z.describe('The strategic cycle the KPI belongs to, when set.'))),
  ownerId: z.optional(id.check(z.describe('The user of the tenant who owns the KPI, when set.'))),
  archivedAt: z.optional(
    timestamp.check(
      z.describe(
        'When the KPI was archived (ISO 8601, UTC); absent while it is live. An archived KPI and its measurements stay readable; pushes and pulls to it are refused.',
      ),
    ),
  ),
  createdAt: timestamp,
  period: kpiPeriodSchema.check(
    z.describe(
      'The span one measurement stands for: `day`, `week` (ISO, Monday to Sunday), `month` (the default), `quarter` or `year`, as UTC calendar dates. A push without a period lands in the current one; any other span than one whole period is refused.',
    ),
  ),
  direction: kpiDirectionSchema.check(
    z.describe(
      '`higher_is_better` (the default): the target is met from below; `lower_is_better`: from above.',
    ),
  ),
  /** How far from its target a KPI is still "at risk" rather than "off track", as a fraction of the target. */
  tolerance: z
    .number()
    .check(
      z.gte(0),
      z.lte(1),
      z.describe(
        'How far from the target, as a fraction of it, the KPI is still at risk rather than off track; default 0.1.',
      ),
    ),
  /** A qualitative KPI (a judgement, not a quantity to meet) has no status. */
  qualitative: z.boolean().check(z.describe('A qualitative KPI has no status against a target.')),
  cadence: kpiCadenceSchema.check(
    z.describe(
      'How often measurements are expected: `daily` (24 h), `weekly` (7 days), `monthly` (31 days) or `none` (the default: never quiet).',
    ),
  ),
  graceHours: graceHoursSchema.check(
    z.describe(
      'Hours a measurement may be late, on top of the cadence, before the KPI is quiet: 0 to 720, default 1.',
    ),
  ),
  /** The KPI's own targets, by period (`periodTargetKey`): what a measurement without one is measured against. */
  targets: z.optional(z.record(z.string(), z.number())),
});
export type Kpi = z.output<typeof kpiSchema>;

/** The most periods a KPI holds a target for: its item stays small, since every push reads it. */
export const MAX_KPI_TARGETS = 400;

/** A period's entry in a KPI's `targets`: its first and last day. */
export const periodTargetKey = ({ periodStart, periodEnd }: { periodStart: string; periodEnd: string }) =>
  `${periodStart}#${periodEnd}`;

/** A KPI's targets as a list, in period order. */
export const kpiTargetList = (kpi: Pick<Kpi, 'targets'>) =>
  Object.entries(kpi.targets ?? {})
    .map(([key, value]) => {
      const [periodStart = '', periodEnd = ''] = key.split('#');
      return { periodStart, periodEnd, value };
    })
    .sort((a, b) => a.periodStart.localeCompare(b.periodStart));
