/**
 * Demo history for the KPI page (issue 15): months of measurements for some seeded KPIs, pushed through
 * the push library like a cron job would have pushed them, each batch with the clock set to when it
 * would have arrived, so the records carry `receivedAt`, the key id and prefix exactly like pushed ones.
 */
import type { Database } from '../lib/db/client';
import { getTenant } from '../lib/db/tenants';
import type { KpiType } from '../lib/domain';
import type { MeasurementInput } from '../lib/push/measurement-schema';
import { pushMeasurements } from '../lib/push/push-service';
import { createTenantCache } from '../lib/tenant-cache';

export type Cadence = 'weekly' | 'monthly' | 'quarterly';

export interface HistoryPlan {
  cadence: Cadence;
  /** How many periods. */
  periods: number;
  /** Periods between the last one pushed and the last complete one: > 2 makes the KPI quiet. */
  stoppedPeriodsAgo?: number;
  /** Value of the first period, and the relative growth over the whole history. */
  start: number;
  growth: number;
  /** Push a target (5 % above the trend) and, for the second half, a forecast. */
  withTarget?: boolean;
  withForecast?: boolean;
  /** Decimals kept (0 for counts). */
  decimals?: number;
}

const DAY_MS = 86_400_000;
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The `index`-th complete period before the current one (0 = the last complete one), as UTC dates. */
const periodBefore = (cadence: Cadence, index: number, nowMs: number) => {
  const now = new Date(nowMs);
  const [year, month] = [now.getUTCFullYear(), now.getUTCMonth()];
  if (cadence === 'weekly') {
    const monday = Date.UTC(year, month, now.getUTCDate()) - ((now.getUTCDay() + 6) % 7) * DAY_MS;
    const start = monday - (index + 1) * 7 * DAY_MS;
    return { periodStart: isoDate(start), periodEnd: isoDate(start + 6 * DAY_MS) };
  }
  const months = cadence === 'monthly' ? 1 : 3;
  const currentStart = cadence === 'monthly' ? month : month - (month % 3);
  const startMonth = currentStart - (index + 1) * months;
  return {
    periodStart: isoDate(Date.UTC(year, startMonth, 1)),
    periodEnd: isoDate(Date.UTC(year, startMonth + months, 0)),
  };
};

/** Deterministic values: a trend with a wiggle, so the charts look alive and stay the same per run. */
export const historyMeasurements = (
  kpi: { id: string; type: KpiType },
  plan: HistoryPlan,
  nowMs: number,
): { measurement: MeasurementInput; receivedAt: number }[] => {
  const round = (value: number) => Number(value.toFixed(plan.decimals ?? 0));
  return Array.from({ length: plan.periods }, (_, i) => {
    const period = periodBefore(plan.cadence, plan.periods - 1 - i + (plan.stoppedPeriodsAgo ?? 0), nowMs);
    const trend = plan.start * (1 + (plan.growth * i) / Math.max(1, plan.periods - 1));
    const wiggle = Math.sin(i * 1.7) * 0.06 * plan.start;
    return {
      measurement: {
        kpiId: kpi.id,
        kpiType: kpi.type,
        actual: round(trend + wiggle),
        target: plan.withTarget ? round(trend * 1.05) : undefined,
        forecast: plan.withForecast && i >= plan.periods / 2 ? round(trend * 1.02) : undefined,
        ...period,
      },
      // The morning after the period ended, as a nightly job would push it (never in the future: at
      // 3 a.m. on the 1st, last month's push has not happened yet, so it "arrived" a minute ago).
      receivedAt: Math.min(Date.parse(`${period.periodEnd}T06:00:00Z`) + DAY_MS, nowMs - 60_000),
    };
  });
};

const MAX_BATCH = 50;

/**
 * Pushes the measurements with the tenant's key, one batch per arrival time, oldest first. This is
 * the seed's only call into the push library.
 */
export const pushHistory = async (
  db: Database,
  apiKey: string,
  history: { measurement: MeasurementInput; receivedAt: number }[],
) => {
  const byArrival = new Map<number, MeasurementInput[]>();
  for (const { measurement, receivedAt } of history) {
    byArrival.set(receivedAt, [...(byArrival.get(receivedAt) ?? []), measurement]);
  }
  const tenants = createTenantCache({ ttlSeconds: 30, load: (id) => getTenant(db, id) });
  for (const at of [...byArrival.keys()].sort((a, b) => a - b)) {
    const measurements = byArrival.get(at) ?? [];
    for (let i = 0; i < measurements.length; i += MAX_BATCH) {
      await pushMeasurements(
        {
          db,
          tenants,
          // Each arrival time is its own rate-limit window; the limits only need to admit a batch.
          rateLimits: { windowSeconds: 60, perPlan: { free: 60, business: 300, enterprise: 3000 } },
          now: () => at,
        },
        { apiKey, readMeasurements: async () => measurements.slice(i, i + MAX_BATCH) },
      );
    }
  }
};
