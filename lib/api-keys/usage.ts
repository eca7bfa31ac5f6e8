import { emptyUsageDay, usageDays } from '../db/api-key-usage';
import { findApiKey } from '../db/api-keys';
import type { Database } from '../db/client';
import { USAGE_REFUSALS, type UsageDay } from '../domain/api-key-usage';
import { AppError } from '../errors';

/** The most days one usage request covers: the retention of a key's usage. */
export const MAX_USAGE_DAYS = 90;

const DAY_MS = 86_400_000;

/** Every date from `from` to `to`, inclusive (`YYYY-MM-DD`, UTC). */
const datesOf = (from: string, to: string) => {
  const dates: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += DAY_MS) {
    dates.push(new Date(at).toISOString().slice(0, 10));
  }
  return dates;
};

/** A day without requests. */
export const emptyDay = emptyUsageDay;

/**
 * A key's usage from `from` to `to`: one row per day, days without requests included (all zero), and
 * the totals. Another tenant's key, like an unknown one, is NOT_FOUND.
 */
export const keyUsage = async (
  db: Database,
  tenantId: string,
  keyId: string,
  { from, to }: { from: string; to: string },
) => {
  const found = await findApiKey(db, tenantId, keyId);
  if (!found) throw new AppError('NOT_FOUND', `API key ${keyId} not found.`);
  const stored = new Map((await usageDays(db, found.keyHash, from, to)).map((day) => [day.date, day]));
  const days = datesOf(from, to).map((date) => stored.get(date) ?? emptyDay(date));
  const latest = [...days].reverse().find((day) => day.lastRequestAt !== null);
  const refusedSource = [...days].reverse().find((day) => day.lastRefusedSourceIp !== null);
  // The sum starts from a day with nothing counted.
  const { refused } = emptyDay(from);
  for (const day of days) for (const reason of USAGE_REFUSALS) refused[reason] += day.refused[reason];
  const sum = (field: 'requests' | 'accepted' | 'measurements') =>
    days.reduce((total, day) => total + day[field], 0);
  return {
    keyId,
    from,
    to,
    days,
    totals: {
      requests: sum('requests'),
      accepted: sum('accepted'),
      measurements: sum('measurements'),
      refused,
      lastRequestAt: latest?.lastRequestAt ?? null,
      lastSourceIp: latest?.lastSourceIp ?? null,
      lastUserAgent: latest?.lastUserAgent ?? null,
      lastRefusedSourceIp: refusedSource?.lastRefusedSourceIp ?? null,
    },
  };
};

/** The days of a key that the key list summarizes. */
export const RECENT_USAGE_DAYS = 30;

/** What the key list shows of a key's use: its last 30 days, for a chart, and where it was last used. */
export interface RecentUsage {
  /** Oldest first, today last: the requests of each day and the refusals among them. */
  days: { date: string; requests: number; refused: number }[];
  requests: number;
  accepted: number;
  refused: number;
  lastRequestAt: string | null;
  lastSourceIp: string | null;
  lastUserAgent: string | null;
}

const refusedOf = (day: UsageDay) => USAGE_REFUSALS.reduce((sum, reason) => sum + day.refused[reason], 0);

/**
 * A key's `lastUsedAt` (the newest within the retention) and its last 30 days, from its stored days
 * newest first (`recentUsageOf`). A day's `requests` counts every request of the known key, the
 * refused ones included: those counted against the rate limit, plus those refused before it is
 * counted (the key's state and its source: the authorizer refuses them at the edge).
 */
export const recentUsage = (
  stored: UsageDay[],
  now = Date.now(),
): { lastUsedAt: string | null; usage: RecentUsage } => {
  const today = new Date(now).toISOString().slice(0, 10);
  const first = new Date(Date.parse(`${today}T00:00:00Z`) - (RECENT_USAGE_DAYS - 1) * DAY_MS)
    .toISOString()
    .slice(0, 10);
  const byDate = new Map(stored.map((day) => [day.date, day]));
  const days = datesOf(first, today).map((date) => byDate.get(date) ?? emptyDay(date));
  const latest = stored.find((day) => day.lastRequestAt !== null && day.date >= first);
  const rows = days.map((day) => ({
    date: day.date,
    requests: day.requests + day.refused.authentication + day.refused.source,
    refused: refusedOf(day),
  }));
  return {
    lastUsedAt: stored.find((day) => day.lastUsedAt !== null)?.lastUsedAt ?? null,
    usage: {
      days: rows,
      requests: rows.reduce((sum, row) => sum + row.requests, 0),
      accepted: days.reduce((sum, day) => sum + day.accepted, 0),
      refused: rows.reduce((sum, row) => sum + row.refused, 0),
      lastRequestAt: latest?.lastRequestAt ?? null,
      lastSourceIp: latest?.lastSourceIp ?? null,
      lastUserAgent: latest?.lastUserAgent ?? null,
    },
  };
};
