import type { Kpi } from '../domain/kpi';
import type { Measurement } from '../domain/measurement';
import { type StoredApiKey, toStored } from './api-keys';
import { batchGet } from './batch';
import type { Database } from './client';
import { type ItemKey, keys } from './keys';
import { toKpi } from './kpis';
import { type MeasurementWrite, toMeasurement } from './measurements';

/** A measurement's identity: its KPI and period. */
export type MeasurementIdentity = Pick<MeasurementWrite, 'kpiId' | 'periodStart' | 'periodEnd'>;

export const identityOf = ({ kpiId, periodStart, periodEnd }: MeasurementIdentity) =>
  `${kpiId}|${periodStart}|${periodEnd}`;

/** What a push reads before it decides: each item parsed, undefined or absent where there is none. */
export interface PushContext {
  key: StoredApiKey | undefined;
  /** By id. */
  kpis: Map<string, Kpi>;
  /** The stored records of the measurements asked for, by identity (`identityOf`). */
  existing: Map<string, Measurement>;
}

/**
 * The first round trip of a push: the key at its hash, the KPIs it names and, when asked, the stored
 * records of its measurements, in one strongly consistent BatchGetItem (a push knows only the key and
 * the KPI ids, which is why both are keyed by what it knows).
 */
export const readPushContext = async (
  db: Database,
  keyHash: string,
  kpiIds: readonly string[],
  measurements: readonly MeasurementIdentity[],
): Promise<PushContext> => {
  const keyOf = (m: MeasurementIdentity) => keys.measurement(m.kpiId, m.periodStart, m.periodEnd);
  const items = await batchGet(db, [
    keys.apiKey(keyHash),
    ...kpiIds.map((id) => keys.kpi(id)),
    ...measurements.map(keyOf),
  ]);
  const byId = new Map(items.map((item) => [`${item.pk}|${item.sk}`, item]));
  const at = (key: ItemKey) => byId.get(`${key.pk}|${key.sk}`);
  const keyItem = at(keys.apiKey(keyHash));
  return {
    key: keyItem ? toStored(keyItem) : undefined,
    kpis: new Map(
      kpiIds.flatMap((id) => {
        const item = at(keys.kpi(id));
        return item ? [[id, toKpi(item)]] : [];
      }),
    ),
    existing: new Map(
      measurements.flatMap((m) => {
        const item = at(keyOf(m));
        return item ? [[identityOf(m), toMeasurement(item)]] : [];
      }),
    ),
  };
};

/**
 * The stored records of some measurements, by identity, in one strongly consistent BatchGetItem: the
 * records of a push whose KPIs' periods put them elsewhere than the first round trip read.
 */
export const readMeasurementRecords = async (
  db: Database,
  measurements: readonly MeasurementIdentity[],
): Promise<Map<string, Measurement>> => {
  const items = await batchGet(
    db,
    measurements.map((m) => keys.measurement(m.kpiId, m.periodStart, m.periodEnd)),
  );
  return new Map(
    items.map((item) => {
      const record = toMeasurement(item);
      return [identityOf(record), record];
    }),
  );
};
