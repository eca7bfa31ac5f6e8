import * as z from 'zod/mini';
import { type Kpi, periodTargetKey } from '../domain/kpi';
import { type Measurement, measurementCoreSchema } from '../domain/measurement';

/**
 * Where a KPI stands against its target, from its newest measurement that has one:
 * - `on_track`: the actual meets the target (at or above it for `higher_is_better`, at or below for
 *   `lower_is_better`);
 * - `at_risk`: it misses by at most `tolerance` of the target's size (10 % by default);
 * - `off_track`: it misses by more;
 * - `no_target`: the KPI has measurements, none of them with a target;
 * - `no_data`: the KPI has no measurement.
 * A qualitative KPI has no status (null). A target of 0 leaves no room to be at risk: any miss is off
 * track.
 */
export const KPI_STATUSES = ['on_track', 'at_risk', 'off_track', 'no_target', 'no_data'] as const;

/** How many of a KPI's newest periods are searched for one with a target: its cost stays bounded. */
export const STATUS_PERIODS = 100;

export const TARGET_SOURCES = ['measurement', 'kpi'] as const;

/**
 * The target a measurement is measured against, and whose it is: its own pushed `target` wins, else the
 * KPI's target for its period; null without either.
 */
export const targetOf = (
  kpi: Pick<Kpi, 'targets'>,
  m: Pick<Measurement, 'periodStart' | 'periodEnd' | 'target'>,
): { target: number; source: (typeof TARGET_SOURCES)[number] } | null => {
  if (m.target !== null) return { target: m.target, source: 'measurement' };
  const own = kpi.targets?.[periodTargetKey(m)];
  return own === undefined ? null : { target: own, source: 'kpi' };
};

/** The first of `measurements` (newest first) that has a target, its own or the KPI's. */
export const newestWithTarget = (kpi: Pick<Kpi, 'targets'>, measurements: readonly Measurement[]) =>
  measurements.find((m) => targetOf(kpi, m) !== null);

export const kpiStatusSchema = z
  .nullable(
    z
      .object({
        value: z
          .enum(KPI_STATUSES)
          .check(
            z.describe(
              '`on_track`: the actual meets the target; `at_risk`: it misses by at most the KPI’s tolerance of the target; `off_track`: by more; `no_target`: no measurement has a target; `no_data`: no measurement.',
            ),
          ),
        measurement: z
          .nullable(
            z.pick(measurementCoreSchema, {
              id: true,
              periodStart: true,
              periodEnd: true,
              actual: true,
              target: true,
            }),
          )
          .check(
            z.describe(
              `The newest measurement with a target (among the ${STATUS_PERIODS} newest periods) that the status is measured on; null without one.`,
            ),
          ),
        targetSource: z.optional(
          z
            .enum(TARGET_SOURCES)
            .check(
              z.describe(
                'Whose target the status is measured against: `measurement` (pushed with the value, which wins) or `kpi` (the KPI’s target for that period, `PUT /kpis/{kpiId}/targets`); absent without a target.',
              ),
            ),
        ),
      })
      .check(z.meta({ id: 'KpiStatus', description: 'Where the KPI stands against its target.' })),
  )
  .check(z.describe('Null for a qualitative KPI, which has no status.'));
export type KpiStatus = z.output<typeof kpiStatusSchema>;

/** The status of an actual against a target, for a KPI's direction and tolerance. */
export const statusAgainst = (
  { direction, tolerance }: Pick<Kpi, 'direction' | 'tolerance'>,
  actual: number,
  target: number,
): 'on_track' | 'at_risk' | 'off_track' => {
  const miss = direction === 'higher_is_better' ? target - actual : actual - target;
  if (miss <= 0) return 'on_track';
  return miss <= tolerance * Math.abs(target) ? 'at_risk' : 'off_track';
};

/**
 * A KPI's status from what was read of it: `withTarget`, its newest measurement with a target, its
 * own or the KPI's for its period (if any), and whether it has any measurement at all.
 */
export const kpiStatus = (kpi: Kpi, withTarget: Measurement | undefined, hasData: boolean): KpiStatus => {
  if (kpi.qualitative) return null;
  const against = withTarget && targetOf(kpi, withTarget);
  if (withTarget && against) {
    const { id, periodStart, periodEnd, actual } = withTarget;
    return {
      value: statusAgainst(kpi, actual, against.target),
      measurement: { id, periodStart, periodEnd, actual, target: against.target },
      targetSource: against.source,
    };
  }
  return { value: hasData ? 'no_target' : 'no_data', measurement: null };
};
