import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../lib/api-keys/key-format';
import { createApiKey } from '../../lib/api-keys/service';
import { keys } from '../../lib/db/keys';
import { createKpi } from '../../lib/db/kpis';
import { baseUrl, createStackTenant, stackDatabase } from '../support/http';

const BURST = 150;
const FREE_LIMIT = 60;
const WINDOW_SECONDS = 60;

interface Answer {
  status: number;
  headers: Headers;
  sentAt: number;
  receivedAt: number;
}

/**
 * The start of the window an answer was counted in, as docs/api.md tells a client to find it: the
 * window ends RateLimit-Reset seconds (within the second before) after the service counted the
 * request, which it did between sending and receiving, so its end is the one multiple of the window in
 * (sentAt + Reset − 1, receivedAt + Reset]. Undefined when the answer took so long that two are.
 */
const windowOf = ({ headers, sentAt, receivedAt }: Answer): number | undefined => {
  const reset = Number(headers.get('ratelimit-reset'));
  const from = sentAt / 1000 + reset - 1;
  const to = receivedAt / 1000 + reset;
  const ends: number[] = [];
  for (let end = Math.ceil(from / WINDOW_SECONDS) * WINDOW_SECONDS; end <= to; end += WINDOW_SECONDS) {
    if (end > from) ends.push(end);
  }
  return ends.length === 1 ? (ends[0] as number) - WINDOW_SECONDS : undefined;
};

/** The key's usage items as the service wrote them: its own count of the requests of each window. */
const serviceCounts = async (key: string) => {
  const db = stackDatabase();
  const { Items = [] } = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.apiKeyUsageDays(hashApiKey(key)).pk },
      ConsistentRead: true,
    }),
  );
  const windows = new Map<number, number>();
  let requests = 0;
  for (const item of Items) {
    requests += Number(item.requests ?? 0);
    for (const [name, value] of Object.entries(item)) {
      const start = /^w(\d+)$/.exec(name)?.[1];
      if (start) windows.set(Number(start), Number(value));
    }
  }
  return { requests, windows };
};

/**
 * A burst on one Free key through the local stack (serverless-offline, DynamoDB Local): every answer
 * is 201 or 429 with its RateLimit-* headers, and no window admits more than the limit by the
 * service's own count. Nothing here depends on how long the answers take: a burst that straddles a
 * window's end is attributed by the headers and the counters, and the emulator's own 504 time-outs
 * (its Lambda time-out on a loaded machine) are logged, not failed.
 */
describe('a burst of pushes with one Free key', () => {
  it(`${BURST} concurrent pushes: only 201 and 429, at most ${FREE_LIMIT} admitted per window by the service's count`, async () => {
    const db = stackDatabase();
    const { tenant } = await createStackTenant('free');
    const kpi = await createKpi(db, tenant.id, { type: 'BSC_KPI', name: 'Burst', period: 'day' });
    const { key } = await createApiKey(db, { tenantId: tenant.id, name: 'burst' });

    const push = async (i: number): Promise<Answer> => {
      const day = new Date(Date.UTC(2001, 0, 1 + i)).toISOString().slice(0, 10);
      const sentAt = Date.now();
      const response = await fetch(`${baseUrl()}/integrations/push/measurement`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({
          kpiId: kpi.id,
          kpiType: kpi.type,
          actual: i,
          periodStart: day,
          periodEnd: day,
        }),
      });
      await response.arrayBuffer();
      return { status: response.status, headers: response.headers, sentAt, receivedAt: Date.now() };
    };
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => push(i)));

    const byStatus = new Map<number, number>();
    for (const { status } of answers) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    const timedOut = answers.filter((a) => a.status === 504);
    console.log(`burst of ${BURST}: ${JSON.stringify(Object.fromEntries(byStatus))}`);
    if (timedOut.length > 0)
      console.log(`${timedOut.length} answered 504 by serverless-offline's Lambda time-out`);

    const counted = answers.filter((a) => a.status !== 504);
    expect(counted.map((a) => a.status).filter((s) => s !== 201 && s !== 429)).toEqual([]);
    for (const { status, headers } of counted) {
      expect(headers.get('ratelimit-limit')).toBe(String(FREE_LIMIT));
      const remaining = Number(headers.get('ratelimit-remaining'));
      const reset = Number(headers.get('ratelimit-reset'));
      expect(Number.isInteger(remaining) && remaining >= 0 && remaining < FREE_LIMIT).toBe(true);
      expect(Number.isInteger(reset) && reset >= 1 && reset <= WINDOW_SECONDS).toBe(true);
      expect(headers.get('retry-after')).toBe(status === 429 ? String(reset) : null);
      if (status === 429) expect(remaining).toBe(0);
    }

    // The service's own count: every request counted once, in one window, none lost or counted again.
    const service = await serviceCounts(key);
    const total = [...service.windows.values()].reduce((sum, n) => sum + n, 0);
    console.log(`service's count per window: ${JSON.stringify(Object.fromEntries(service.windows))}`);
    expect(total).toBe(service.requests);
    expect(total).toBeGreaterThanOrEqual(counted.length);
    expect(total).toBeLessThanOrEqual(answers.length);

    // Each answer in the window the service counted it in, by its headers; at most the limit admitted.
    const admitted = new Map<number, number[]>();
    const unattributed: Answer[] = [];
    for (const answer of counted) {
      const start = windowOf(answer);
      if (start === undefined) {
        unattributed.push(answer);
        continue;
      }
      expect(service.windows.has(start)).toBe(true);
      if (answer.status === 201) {
        admitted.set(start, [
          ...(admitted.get(start) ?? []),
          Number(answer.headers.get('ratelimit-remaining')),
        ]);
      }
    }
    if (unattributed.length > 0) console.log(`${unattributed.length} answers took too long to attribute`);
    for (const [start, n] of service.windows) {
      const remaining = admitted.get(start) ?? [];
      console.log(
        `window ${new Date(start * 1000).toISOString()}: ${n} counted, ${remaining.length} admitted`,
      );
      expect(remaining.length).toBeLessThanOrEqual(FREE_LIMIT);
      // Each admitted request had its own ordinal in its window: no two answers say the same remainder.
      expect(new Set(remaining).size).toBe(remaining.length);
      // As many admitted as the service's count lets in, but for answers lost to a 504 or unattributed.
      expect(remaining.length).toBeGreaterThanOrEqual(
        Math.min(n, FREE_LIMIT) - timedOut.length - unattributed.length,
      );
    }
    const created = counted.filter((a) => a.status === 201).length;
    expect(created).toBeLessThanOrEqual(
      [...service.windows.values()].reduce((sum, n) => sum + Math.min(n, FREE_LIMIT), 0),
    );
  }, 300_000);
});
