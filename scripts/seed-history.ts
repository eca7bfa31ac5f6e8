/**
 * Demo history for the KPI page: months of measurements for some seeded KPIs, pushed through
 * the push library like a cron job would have pushed them, each batch with the clock set to when it
 * would have arrived, so the records carry `receivedAt`, the key id and prefix exactly like pushed ones.
 * The same way, the key page's demo traffic (scripts/seed.ts): each request lands on its key's day of
 * usage, with its source, as a request through API Gateway would.
 */
import type { Database } from '../lib/db/client';
import { getTenant } from '../lib/db/tenants';
import type { KpiType } from '../lib/domain/kpi';
import { AppError, type ErrorCode } from '../lib/errors';
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
  /**
   * The target as a multiple of the trend, default 1.05: below 1 the KPI beats its target (on track),
   * far above it falls behind (off track).
   */
  targetRatio?: number;
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
        target: plan.withTarget ? round(trend * (plan.targetRatio ?? 1.05)) : undefined,
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

/** Where a request comes from, as API Gateway would see it. */
export interface Client {
  sourceIp: string;
  userAgent: string;
}

/** One request of the demo traffic: what a client sent with a key, and when. */
export interface SeedRequest {
  at: number;
  apiKey: string;
  client: Client;
  measurements: MeasurementInput[];
  dryRun?: boolean;
  /** The refusal the request is meant to get (a revoked key, a KPI outside the key's scope). */
  refused?: ErrorCode;
}

/** The history as the requests that pushed it: one batch (of at most 50) per arrival time. */
export const historyRequests = (
  apiKey: string,
  client: Client,
  history: { measurement: MeasurementInput; receivedAt: number }[],
): SeedRequest[] => {
  const byArrival = new Map<number, MeasurementInput[]>();
  for (const { measurement, receivedAt } of history) {
    byArrival.set(receivedAt, [...(byArrival.get(receivedAt) ?? []), measurement]);
  }
  return [...byArrival].flatMap(([at, measurements]) =>
    Array.from({ length: Math.ceil(measurements.length / MAX_BATCH) }, (_, i) => ({
      at,
      apiKey,
      client,
      measurements: measurements.slice(i * MAX_BATCH, (i + 1) * MAX_BATCH),
    })),
  );
};

/**
 * Sends the requests through the push library, oldest first: a day of usage keeps the last request's
 * time and source, and a measurement the last value pushed, so the order is the clock's. A planned
 * refusal is part of the demo and counts on its key's day like any other; any other outcome is a
 * mistake of the seed and stops it. This is the seed's only call into the push library.
 */
export const pushTraffic = async (db: Database, requests: SeedRequest[]) => {
  const tenants = createTenantCache({ ttlSeconds: 30, load: (id) => getTenant(db, id) });
  for (const request of [...requests].sort((a, b) => a.at - b.at)) {
    let refused: ErrorCode | undefined;
    try {
      await pushMeasurements(
        {
          db,
          tenants,
          // Each request's minute is its own rate-limit window; the limits only need to admit it.
          rateLimits: { windowSeconds: 60, perPlan: { free: 60, business: 300, enterprise: 3000 } },
          now: () => request.at,
        },
        {
          apiKey: request.apiKey,
          input: Promise.resolve({ measurements: request.measurements, dryRun: request.dryRun }),
          source: request.client,
        },
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== request.refused) throw error;
      refused = error.code;
    }
    if (refused !== request.refused) {
      throw new Error(`A seeded push at ${new Date(request.at).toISOString()} was meant to be refused`);
    }
  }
};
