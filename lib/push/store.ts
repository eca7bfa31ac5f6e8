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
import { uuidv7 } from '../ids';
import type { MeasurementInput } from './measurement-schema';

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

/** The existing record of a measurement, read beforehand and parsed (undefined when there is none). */
export type ExistingOf = (input: MeasurementInput) => Pick<Measurement, 'id' | 'createdAt'> | undefined;

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
