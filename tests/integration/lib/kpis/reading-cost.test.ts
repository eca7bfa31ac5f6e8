import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { batchPut } from '../../../../lib/db/batch';
import { keys } from '../../../../lib/db/keys';
import { createKpi, getKpiWithMeasurements } from '../../../../lib/db/kpis';
import type { Kpi } from '../../../../lib/domain/kpi';
import { uuidv7 } from '../../../../lib/ids';
import { RECENT_MEASUREMENTS } from '../../../../lib/kpis/activity';
import { listKpisWithActivity, listKpisWithArrivals } from '../../../../lib/kpis/overview';
import { createRawKey, createTestTenant, db, type TestTenant } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';
import { pushBatch } from '../../../support/push';

/**
 * The KPI list must not read every measurement of every KPI. Measured for a tenant with
 * 200 KPIs and 100 monthly periods each (20,000 measurements), with DynamoDB's own accounting:
 * every Query is sent with ReturnConsumedCapacity through the instrumented client, so the figures are
 * the read units DynamoDB bills, the items it read, the requests and the sequential round trips.
 */
const KPIS = 200;
const PERIODS = 100;

const period = (i: number) => {
  const start = new Date(Date.UTC(2018, i, 1)).toISOString().slice(0, 10);
  const end = new Date(Date.UTC(2018, i + 1, 0)).toISOString().slice(0, 10);
  return { periodStart: start, periodEnd: end };
};

interface Cost {
  requests: number;
  items: number;
  readUnits: number;
  rounds: number;
}

/** Runs `read` on a client that asks DynamoDB for the consumed capacity of every Query. */
const measure = async (read: (counted: typeof db) => Promise<unknown>): Promise<Cost> => {
  let items = 0;
  let readUnits = 0;
  const {
    db: counted,
    calls,
    rounds,
  } = instrument(db, (command) => {
    if (command.name !== 'QueryCommand') return undefined;
    return {
      patchResult: (result: any) => {
        items += result.ScannedCount ?? 0;
        readUnits += result.ConsumedCapacity?.CapacityUnits ?? 0;
        return result;
      },
    };
  });
  await read(counted);
  return { requests: calls.length, items, readUnits, rounds: rounds() };
};

let tenant: TestTenant;
let kpis: Kpi[];
beforeAll(async () => {
  tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: [] });
  kpis = [];
  for (let i = 0; i < KPIS; i += 20) {
    const chunk = Array.from({ length: 20 }, (_, j) => `KPI ${i + j}`);
    kpis.push(
      ...(await Promise.all(chunk.map((name) => createKpi(db, tenant.tenant.id, { type: 'BSC_KPI', name })))),
    );
  }
  // The first KPI's history goes through the push endpoint, so the stored records are exactly what
  // push writes (provenance included); the other 199 KPIs get copies of those records.
  const key = await createRawKey(tenant.tenant.id);
  const first = kpis[0] as Kpi;
  for (let from = 0; from < PERIODS; from += 50) {
    const batch = Array.from({ length: Math.min(50, PERIODS - from) }, (_, j) => ({
      kpiId: first.id,
      kpiType: first.type,
      actual: 1000 + from + j,
      target: 1100,
      forecast: 1050,
      ...period(from + j),
    }));
    expect((await pushBatch(key, batch)).status).toBe(200);
  }
  const { Items: pushed = [] } = await db.client.send(
    new QueryCommand({
      TableName: db.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.kpiPartition(first.id).pk, ':prefix': 'MEASUREMENT#' },
    }),
  );
  expect(pushed).toHaveLength(PERIODS);
  const copies = kpis
    .slice(1)
    .flatMap((kpi) =>
      pushed.map((item) => ({ ...item, pk: keys.kpiPartition(kpi.id).pk, kpiId: kpi.id, id: uuidv7() })),
    );
  await batchPut(db, copies);
}, 600_000);

describe(`reading cost for ${KPIS} KPIs x ${PERIODS} periods`, () => {
  it(`the list reads at most ${RECENT_MEASUREMENTS} measurements per KPI: flat in the number of periods`, async () => {
    const cost = await measure(async (counted) => {
      let cursor: string | undefined;
      let listed = 0;
      do {
        const page = await listKpisWithActivity(
          counted,
          tenant.tenant.id,
          { limit: 100, cursor },
          {},
          Date.now(),
        );
        for (const kpi of page.items) expect(kpi.activity.recent).toHaveLength(RECENT_MEASUREMENTS);
        listed += page.items.length;
        cursor = page.nextCursor;
      } while (cursor);
      expect(listed).toBe(KPIS);
    });
    // Two pages of 100: per page one index Query, then one Query per KPI, all in parallel.
    expect(cost.requests).toBe(2 + KPIS);
    expect(cost.rounds).toBe(4);
    // The index Query of the first page reads one KPI more, to know that a second page exists.
    expect(cost.items).toBe(KPIS + 1 + KPIS * RECENT_MEASUREMENTS);
    // Eventually consistent, each KPI's Query reads under 4 KB: 0.5 units, plus the KPI pages.
    expect(cost.readUnits).toBeLessThanOrEqual(KPIS * 0.5 + 10);

    // For comparison, what reading every measurement of every KPI costs.
    const everything = await measure((counted) =>
      Promise.all(
        kpis.map((kpi) =>
          counted.client.send(
            new QueryCommand({
              TableName: counted.tableName,
              KeyConditionExpression: 'pk = :pk',
              ExpressionAttributeValues: { ':pk': keys.kpiPartition(kpi.id).pk },
            }),
          ),
        ),
      ),
    );
    expect(everything.items).toBe(KPIS * (PERIODS + 1));
    expect(cost.readUnits * 5).toBeLessThan(everything.readUnits);
    console.info(
      `[reading cost] list of ${KPIS} KPIs x ${PERIODS} periods: ${JSON.stringify(cost)}; ` +
        `reading every measurement instead: ${JSON.stringify(everything)}`,
    );
  });

  it('the plain list, with lastMeasurementAt and quiet, reads the same bounded 8 per KPI, 100 KPIs at a time', async () => {
    const cost = await measure(async (counted) => {
      const page = await listKpisWithArrivals(counted, tenant.tenant.id, { limit: KPIS }, {}, Date.now());
      expect(page.items).toHaveLength(KPIS);
      for (const kpi of page.items) expect(kpi.lastMeasurementAt).toEqual(expect.any(String));
    });
    // One index Query for the page of 200, then the KPIs' Queries in two slices of 100.
    expect(cost.requests).toBe(1 + KPIS);
    expect(cost.rounds).toBe(3);
    expect(cost.items).toBe(KPIS + KPIS * RECENT_MEASUREMENTS);
    expect(cost.readUnits).toBeLessThanOrEqual(KPIS * 0.5 + 10);
    console.info(`[reading cost] plain list of ${KPIS} KPIs: ${JSON.stringify(cost)}`);
  });

  it('the detail of one KPI is one Query, whatever it holds', async () => {
    const cost = await measure(async (counted) => {
      const found = await getKpiWithMeasurements(counted, tenant.tenant.id, kpis[7]!.id, { limit: 1000 });
      expect(found?.measurements.items).toHaveLength(PERIODS);
    });
    expect(cost).toMatchObject({ requests: 1, rounds: 1, items: PERIODS + 1 });
    console.info(`[reading cost] detail of a KPI with ${PERIODS} periods: ${JSON.stringify(cost)}`);
  });
});
