import { GetCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as singleHandler } from '../../../functions/push-measurement';
import { handler as batchHandler } from '../../../functions/push-measurements-batch';
import { keys } from '../../../lib/db/keys';
import type { Kpi } from '../../../lib/domain/kpi';
import { KPI_TYPES } from '../../../lib/domain/kpi';
import { createGateway } from '../../support/api-gateway';
import { createRawKey, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import {
  changedItems,
  eventAround,
  expectSound,
  fuzzOptions,
  fuzzTimeout,
  hostileBody,
  nastyNumber,
  nearMiss,
  storedData,
} from '../../support/fuzz';

const RUNS = 60;
let tenant: TestTenant;
let other: TestTenant;
let apiKey: string;
beforeAll(async () => {
  // Enterprise: the largest rate budget (3000 a minute), so samples are refused for what they are.
  tenant = await createTestTenant({ plan: 'enterprise' });
  other = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
  apiKey = await createRawKey(tenant.tenant.id);
});

const day = fc
  .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

/** Mostly-valid measurements: the tenant's KPIs with their types, another tenant's, unknown ones. */
const measurement = () =>
  fc
    .record(
      {
        kpi: fc.oneof(
          fc.constantFrom(...tenant.kpis),
          fc.constantFrom(...other.kpis),
          fc.uuid().map((id) => ({ id, type: 'BSC_KPI' }) as Kpi),
        ),
        wrongType: fc.nat({ max: 4 }).map((n) => n === 0),
        actual: nastyNumber,
        target: fc.option(nastyNumber),
        forecast: fc.option(nastyNumber),
        periodStart: day,
        periodEnd: day,
      },
      { requiredKeys: ['kpi', 'actual'] },
    )
    .chain(({ kpi, wrongType, ...rest }) =>
      fc.constantFrom(...KPI_TYPES).map((anyType) => ({
        kpiId: kpi.id,
        kpiType: wrongType ? anyType : kpi.type,
        ...rest,
      })),
    );

const sameNumber = (stored: unknown, sent: unknown) =>
  expect(stored).toBe(Object.is(sent, -0) ? 0 : sent === null ? undefined : sent);

/** What a 2xx stored, read back from the table: the values exactly as sent (-0 as 0). */
const expectStoredUnchanged = async (sent: Record<string, any>, answered: Record<string, any>) => {
  const { Item } = await db.client.send(
    new GetCommand({
      TableName: db.tableName,
      Key: keys.measurement(answered.kpiId, answered.periodStart, answered.periodEnd),
      ConsistentRead: true,
    }),
  );
  expect(Item).toBeDefined();
  sameNumber(Item!.actual, sent.actual);
  sameNumber(Item!.target, sent.target);
  sameNumber(Item!.forecast, sent.forecast);
  expect(answered.actual).toBe(Item!.actual);
  return `${Item!.pk}|${Item!.sk}`;
};

describe('fuzz: the push endpoints', () => {
  const gateway = createGateway({ cacheTtlMs: 300_000 });
  const headers = () => ({ 'x-api-key': apiKey });

  it(
    'single: never 5xx; every 4xx a problem document; a 2xx stored exactly what was sent, nothing else stored',
    async () => {
      const body = fc.oneof(
        { weight: 3, arbitrary: measurement() },
        { weight: 2, arbitrary: nearMiss(measurement()) },
        {
          weight: 1,
          arbitrary: hostileBody,
        },
      );
      const written = new Set<string>();
      const before = await storedData();
      await fc.assert(
        fc.asyncProperty(
          body.chain((value) =>
            eventAround(value, headers(), '/api/integrations/push/measurement').map((event) => ({
              value,
              event,
            })),
          ),
          async ({ value, event }) => {
            const result = await gateway.invoke(singleHandler, event);
            expectSound(result);
            if (result.status < 300)
              written.add(await expectStoredUnchanged(value as Record<string, any>, result.body));
          },
        ),
        fuzzOptions(RUNS),
      );
      expect(changedItems(before, await storedData())).toEqual(written);
    },
    fuzzTimeout(RUNS),
  );

  it(
    'batch (0 to 51 elements, duplicates): never 5xx; all or nothing; a 2xx stored exactly what was sent',
    async () => {
      const elements = fc.array(
        fc.oneof({ weight: 4, arbitrary: measurement() }, { weight: 1, arbitrary: nearMiss(measurement()) }),
        {
          maxLength: 51,
        },
      );
      const withDuplicates = elements.chain((list) =>
        list.length === 0 ? fc.constant(list) : fc.boolean().map((dup) => (dup ? [...list, list[0]] : list)),
      );
      const body = fc.oneof(
        { weight: 4, arbitrary: withDuplicates.map((measurements) => ({ measurements })) },
        { weight: 1, arbitrary: nearMiss(withDuplicates.map((measurements) => ({ measurements }))) },
        { weight: 1, arbitrary: hostileBody },
      );
      const written = new Set<string>();
      const before = await storedData();
      await fc.assert(
        fc.asyncProperty(
          body.chain((value) =>
            eventAround(value, headers(), '/api/integrations/push/measurements/batch').map((event) => ({
              value,
              event,
            })),
          ),
          async ({ value, event }) => {
            const result = await gateway.invoke(batchHandler, event);
            expectSound(result);
            if (result.status < 300) {
              const sent = (value as { measurements: Record<string, any>[] }).measurements;
              expect(result.body.count).toBe(sent.length);
              for (const [i, item] of result.body.items.entries()) {
                written.add(await expectStoredUnchanged(sent[i]!, item.measurement));
              }
            }
          },
        ),
        fuzzOptions(RUNS),
      );
      expect(changedItems(before, await storedData())).toEqual(written);
    },
    fuzzTimeout(RUNS),
  );
});
