import type { Database } from '../db/client';
import { keys } from '../db/keys';
import {
  type PlannedMeasurement,
  planMeasurements,
  putMeasurements,
  upsertMeasurement,
  type WriteContext,
  type WrittenMeasurement,
} from '../db/measurements';
import type { Kpi } from '../domain/kpi';
import type { Measurement } from '../domain/measurement';
import { type KpiPeriod, type PeriodSpan, periodMismatchMessage, resolvePeriod } from '../domain/period';
import { AppError, type FieldError } from '../errors';
import { uuidv7 } from '../ids';
import { asGiven, type MeasurementInput } from './measurement-schema';

/**
 * The one way measurements are written, for a push and for a pull alike: the KPI rule (the KPI is the
 * writer's tenant's, of the named type) and the write (an upsert per KPI and period that keeps `id`
 * and `createdAt`, sets `updatedAt` and `receivedAt`, and records who wrote it). Every measurement is
 * validated by the push's schema (./measurement-schema.ts) before it gets here, and every check and
 * conversion happens before the first write, so a refused set writes nothing.
 */

/** The item key of a measurement's record: its identity, (KPI, period). */
export const measurementKey = (m: Pick<MeasurementInput, 'kpiId' | 'periodStart' | 'periodEnd'>) =>
  keys.measurement(m.kpiId, m.periodStart, m.periodEnd);

/**
 * Whether a measurement may be written to this KPI: it exists, is the tenant's, and has the type the
 * measurement names. A foreign KPI and a missing one look alike, so ids of other tenants cannot be probed.
 */
export const writableKpi = (kpi: Kpi | undefined, tenantId: string, kpiType: string): kpi is Kpi =>
  kpi !== undefined && kpi.tenantId === tenantId && kpi.type === kpiType;

/** What a refusal says of an archived KPI: its id and name, and how to write to it again. */
export const archivedKpiMessage = (kpi: Pick<Kpi, 'id' | 'name'>) =>
  `KPI ${kpi.id} (${kpi.name}) is archived; restore it with PATCH {"archived": false} to write to it.`;

/**
 * No measurement is written to an archived KPI, pushed or pulled: a 409 naming each archived KPI of
 * the set (checked after ownership, from the KPIs already read: no read of its own), before anything
 * is written, so a batch with one is refused whole.
 */
export const assertLiveKpis = (kpiIds: Iterable<string>, kpis: Map<string, Kpi>) => {
  const archived = [...new Set(kpiIds)].flatMap((kpiId) => {
    const kpi = kpis.get(kpiId);
    return kpi?.archivedAt === undefined ? [] : [kpi];
  });
  if (archived.length === 0) return;
  throw new AppError(
    'KPI_ARCHIVED',
    archived.length === 1
      ? archivedKpiMessage(archived[0] as Kpi)
      : `${archived.length} KPIs are archived: ${archived.map((kpi) => `${kpi.id} (${kpi.name})`).join(', ')}; restore them with PATCH {"archived": false} to write to them.`,
    { extensions: { archivedKpiIds: archived.map((kpi) => kpi.id) } },
  );
};

/** The existing record of a measurement, read beforehand and parsed (undefined when there is none). */
export type ExistingOf = (input: MeasurementInput) => Measurement | undefined;

/** A measurement put in its KPI's period, or why its span is not one. */
export type PeriodPlacement =
  | { ok: true; measurement: MeasurementInput }
  | {
      ok: false;
      field: 'periodStart' | 'periodEnd';
      message: string;
      period: KpiPeriod;
      expected: PeriodSpan;
    };

/**
 * The period rule, for a push and a pull alike: a measurement is one whole period of its KPI. The
 * bounds it left out (`defaulted`) are its KPI's current period, or the period that holds the bound it
 * gave; bounds given must be exactly one period, else the problem names the KPI's period and the
 * dates expected (the period that holds `periodStart`). Time is UTC: `nowMs`'s UTC day.
 */
export const placeInPeriod = (
  kpi: Pick<Kpi, 'period'>,
  m: MeasurementInput,
  nowMs: number,
): PeriodPlacement => {
  const { defaulted: _, ...measurement } = m;
  const given = asGiven(m);
  const resolved = resolvePeriod(kpi.period, given, nowMs);
  if (resolved.ok) return { ok: true, measurement: { ...measurement, ...resolved.span } };
  const { expected } = resolved;
  return {
    ok: false,
    field:
      given.periodStart !== undefined && given.periodStart !== expected.periodStart
        ? 'periodStart'
        : 'periodEnd',
    message: periodMismatchMessage(kpi.period, expected),
    period: kpi.period,
    expected,
  };
};

const identity = (m: MeasurementInput) => `${m.kpiId}|${m.periodStart}|${m.periodEnd}`;

/**
 * Every measurement of a set in its KPI's period (the KPIs checked already), or a 400 naming each
 * one that is not a whole period, and each two that land on the same period, before anything is
 * written. `pathOf` names an element as the request does (`measurements[3]`, or `` for one).
 */
export const placeAllInPeriods = (
  measurements: MeasurementInput[],
  kpis: Map<string, Pick<Kpi, 'period'>>,
  nowMs: number,
  pathOf: (index: number) => string = () => '',
): MeasurementInput[] => {
  const errors: FieldError[] = [];
  const expectedPeriods: Record<string, unknown>[] = [];
  const at = (index: number, field: string) => (pathOf(index) ? `${pathOf(index)}.${field}` : field);
  const placed = measurements.map((m, index) => {
    const kpi = kpis.get(m.kpiId) as Pick<Kpi, 'period'>;
    const placement = placeInPeriod(kpi, m, nowMs);
    if (placement.ok) return placement.measurement;
    errors.push({ path: at(index, placement.field), message: placement.message });
    expectedPeriods.push({
      path: pathOf(index) || '(body)',
      kpiId: m.kpiId,
      period: placement.period,
      ...placement.expected,
    });
    return m;
  });
  if (errors.length === 0) {
    const first = new Map<string, number>();
    placed.forEach((m, index) => {
      const earlier = first.get(identity(m));
      if (earlier === undefined) first.set(identity(m), index);
      else {
        errors.push({ path: pathOf(earlier), message: `same kpiId and period as ${pathOf(index)}` });
        errors.push({ path: pathOf(index), message: `same kpiId and period as ${pathOf(earlier)}` });
      }
    });
  }
  if (errors.length > 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      expectedPeriods.length > 0
        ? `A measurement must be one whole period of its KPI: ${expectedPeriods.length} is not.`
        : `The request body has ${errors.length} invalid field(s).`,
      { errors, ...(expectedPeriods.length > 0 ? { extensions: { expectedPeriods } } : {}) },
    );
  }
  return placed;
};

/**
 * Writes checked measurements. Without `existing` (one measurement, not read first) it is one
 * conditional-free UpdateItem that tells created from updated by itself; with the records read
 * beforehand, whole items in BatchWriteItem (one write unit each).
 */
export const storeMeasurements = async (
  db: Database,
  measurements: MeasurementInput[],
  context: WriteContext,
  existing?: ExistingOf,
): Promise<WrittenMeasurement[]> => {
  const [only] = measurements;
  if (!existing && only && measurements.length === 1) {
    return [await upsertMeasurement(db, only, context, uuidv7())];
  }
  return putMeasurements(
    db,
    measurements.map((input) => ({ input, existing: existing?.(input), newId: uuidv7() })),
    context,
  );
};

/** What `storeMeasurements` would write, given the existing records: a dry run, a preview. */
export const planStore = (
  measurements: MeasurementInput[],
  context: WriteContext,
  existing: ExistingOf,
): PlannedMeasurement[] =>
  planMeasurements(
    measurements.map((input) => ({ input, existing: existing(input) })),
    context,
  );
