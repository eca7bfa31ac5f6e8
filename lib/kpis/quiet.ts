import * as z from 'zod/mini';
import { CADENCE_HOURS, type Kpi } from '../domain/kpi';
import type { Measurement } from '../domain/measurement';
import { timestamp } from '../domain/values';

const HOUR_MS = 3_600_000;

/**
 * When a measurement of a KPI last arrived, from its newest periods: the latest `receivedAt` (a record
 * written before push kept it counts as received when last updated); null without any.
 */
export const lastArrival = (measurements: Pick<Measurement, 'receivedAt' | 'updatedAt'>[]): string | null =>
  measurements
    .map((m) => m.receivedAt ?? m.updatedAt)
    .filter((at) => !Number.isNaN(Date.parse(at)))
    .sort()
    .at(-1) ?? null;

export interface Quietness {
  quiet: boolean;
  /** When the KPI went quiet (or goes quiet, while it is not); null for a KPI without a cadence. */
  quietSince: string | null;
}

/**
 * The one meaning of quiet: a KPI with a cadence is quiet when no measurement has arrived for its
 * cadence plus its grace period, counted from its last arrival, or from its creation when nothing ever
 * arrived. A KPI without a cadence (`none`) expects nothing and is never quiet.
 */
export const kpiQuietness = (
  kpi: Pick<Kpi, 'cadence' | 'graceHours' | 'createdAt'>,
  lastMeasurementAt: string | null,
  nowMs: number,
): Quietness => {
  if (kpi.cadence === 'none') return { quiet: false, quietSince: null };
  const since =
    Date.parse(lastMeasurementAt ?? kpi.createdAt) + (CADENCE_HOURS[kpi.cadence] + kpi.graceHours) * HOUR_MS;
  return { quiet: nowMs >= since, quietSince: new Date(since).toISOString() };
};

/** What every read of a KPI says of its arrivals, next to the KPI itself. */
export const kpiArrivalsShape = {
  lastMeasurementAt: z
    .nullable(timestamp)
    .check(
      z.describe(
        'When a measurement of the KPI last arrived (the newest `receivedAt` among its 8 newest periods); `null` when none has. ISO 8601 date-time, UTC.',
      ),
    ),
  quiet: z
    .boolean()
    .check(
      z.describe(
        'The KPI has a `cadence` and nothing arrived for the cadence plus `graceHours` (counted from its creation when nothing ever arrived). Always `false` with cadence `none`.',
      ),
    ),
  quietSince: z
    .nullable(timestamp)
    .check(
      z.describe(
        'When the KPI went quiet, or, while it is not, when it will if nothing arrives; `null` with cadence `none`. ISO 8601 date-time, UTC.',
      ),
    ),
};

export type KpiArrivals = { lastMeasurementAt: string | null } & Quietness;

/** A KPI's arrivals from its newest measurements (any order). */
export const kpiArrivals = (
  kpi: Pick<Kpi, 'cadence' | 'graceHours' | 'createdAt'>,
  recent: Pick<Measurement, 'receivedAt' | 'updatedAt'>[],
  nowMs: number,
): KpiArrivals => {
  const lastMeasurementAt = lastArrival(recent);
  return { lastMeasurementAt, ...kpiQuietness(kpi, lastMeasurementAt, nowMs) };
};
