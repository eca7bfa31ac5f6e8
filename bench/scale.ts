import { runAlertCheck } from '../lib/alerts/check';
import { batchPut } from '../lib/db/batch';
import { createDatabase, type Database } from '../lib/db/client';
import { keys } from '../lib/db/keys';
import { kpis } from '../lib/db/kpis';
import { pullIntegrations } from '../lib/db/pull-integrations';
import type { Kpi } from '../lib/domain/kpi';
import { uuidv7 } from '../lib/ids';
import { schedulePass } from '../lib/pull/scheduler';
import { type Call, capacityOf, recordCalls } from './capacity';
import { pullIntegrationRecord } from './records';

/**
 * `npm run bench -- --scale`: the scheduled readers at growing data sets, on DynamoDB Local with
 * `ReturnConsumedCapacity: TOTAL`. At each size the same few items are due (10 quiet KPIs, 10 due
 * integrations) among many that wait; what a run costs must not grow with the ones that wait.
 */

const DAY_MS = 86_400_000;
/** What is due at every size. */
export const DUE_AT_EVERY_SIZE = 10;

export interface ScaleRow {
  operation: string;
  size: number;
  requests: number;
  readUnits: number;
  writeUnits: number;
  itemsRead: number;
}

const measured = (db: Database) => {
  const calls: Call[] = [];
  const probe = createDatabase({
    tableName: db.tableName,
    region: 'eu-central-1',
    endpoint: process.env.DYNAMODB_ENDPOINT,
  });
  recordCalls(probe.client, calls);
  return { probe, calls };
};

const row = (operation: string, size: number, calls: Call[], itemsRead: number): ScaleRow => {
  const { read, write } = capacityOf(calls);
  return { operation, size, requests: calls.length, readUnits: read, writeUnits: write, itemsRead };
};

const kpiOf = (tenantId: string, createdAt: string): Kpi =>
  kpis.fromItem({
    ...keys.kpi('x'),
    type: 'KPI',
    id: uuidv7(),
    tenantId,
    name: 'Scaled',
    kpiType: 'THEME_KPI',
    cadence: 'daily',
    graceHours: 0,
    createdAt,
  });

/** The alert check with `size` cadenced KPIs that wait (entries a day ahead) and 10 quiet ones. */
const alertCheckAt = async (db: Database, size: number, now: number): Promise<ScaleRow> => {
  const tenantId = uuidv7();
  const waiting = Array.from({ length: size }, () => {
    const item = kpis.toItem(kpiOf(tenantId, new Date(now).toISOString()));
    return { ...item, ...keys.kpiQuietIndex(String(item.id), new Date(now + DAY_MS).toISOString()) };
  });
  const quiet = Array.from({ length: DUE_AT_EVERY_SIZE }, () =>
    kpis.toItem(kpiOf(tenantId, new Date(now - 2 * DAY_MS).toISOString())),
  );
  await batchPut(db, [...waiting, ...quiet]);
  const { probe, calls } = measured(db);
  const result = await runAlertCheck({ db: probe, publish: async () => {}, now });
  probe.client.destroy();
  return row('alert check (cadenced KPIs, 10 quiet)', size, calls, result.kpisChecked + result.keysChecked);
};

/** The scheduler's pass with `size` integrations that wait and 10 due. */
const schedulerAt = async (db: Database, size: number, now: number): Promise<ScaleRow> => {
  const kpi = { id: uuidv7(), tenantId: uuidv7() };
  const later = new Date(now + DAY_MS).toISOString();
  const due = new Date(now - 60_000).toISOString();
  await batchPut(db, [
    ...Array.from({ length: size }, () => pullIntegrations.toItem(pullIntegrationRecord(kpi, later))),
    ...Array.from({ length: DUE_AT_EVERY_SIZE }, () =>
      pullIntegrations.toItem(pullIntegrationRecord(kpi, due)),
    ),
  ]);
  const { probe, calls } = measured(db);
  const result = await schedulePass({
    db: probe,
    queue: { send: async () => {}, retryLater: async () => {} },
    now,
  });
  probe.client.destroy();
  return row('scheduler pass (integrations, 10 due)', size, calls, result.due);
};

/**
 * Each operation at each size, on a table of its own (`tableFor`), so that one size's items are not
 * due in another's run. Answers the rows and the operations whose requests or units grew with the size.
 */
export const measureScale = async (tableFor: (name: string) => Promise<Database>, sizes: number[]) => {
  const rows: ScaleRow[] = [];
  const now = Date.parse('2030-01-01T00:00:00.000Z');
  for (const size of sizes) {
    rows.push(await alertCheckAt(await tableFor(`alerts-${size}`), size, now));
    rows.push(await schedulerAt(await tableFor(`scheduler-${size}`), size, now));
  }
  const grown = [...new Set(rows.map((r) => r.operation))].filter((operation) => {
    const [smallest, ...larger] = rows.filter((r) => r.operation === operation);
    return larger.some(
      (r) =>
        r.requests > (smallest?.requests ?? 0) ||
        r.readUnits > (smallest?.readUnits ?? 0) + 1 ||
        r.writeUnits > (smallest?.writeUnits ?? 0),
    );
  });
  return { rows, grown };
};
