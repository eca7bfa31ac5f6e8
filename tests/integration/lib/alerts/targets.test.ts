import { beforeAll, describe, expect, it } from 'vitest';
import { runTargetAlertCheck } from '../../../../lib/alerts/targets';
import type { Kpi } from '../../../../lib/domain/kpi';
import type { WebhookEvent } from '../../../../lib/webhooks/events';
import { createTestTenant, db, putMeasurement, type TestTenant } from '../../../support/fixtures';

/**
 * The target check on a real table with a publisher that records what it is given. The table is
 * shared by the file, so each test looks at the events of its own tenant.
 */
const published: WebhookEvent[] = [];
const publish = async (event: WebhookEvent) => {
  published.push(event);
};
const run = (options: { publish?: typeof publish } = {}) =>
  runTargetAlertCheck({ db, publish: options.publish ?? publish, now: Date.now() });
const eventsOf = (tenant: TestTenant, type: WebhookEvent['type']) =>
  published.filter((event) => event.tenantId === tenant.tenant.id && event.type === type);

const month = (i: number) => {
  const start = new Date(Date.UTC(2024, i, 1)).toISOString().slice(0, 10);
  const end = new Date(Date.UTC(2024, i + 1, 0)).toISOString().slice(0, 10);
  return [start, end] as const;
};
/** A steady KPI around 100: months 0 to count − 1, the newest with `target`. */
const history = async (kpi: Kpi, count: number, target: number) => {
  for (let i = 0; i < count; i++)
    await putMeasurement(kpi, ...month(i), 100 + ((i * 7) % 5) - 2, i === count - 1 ? { target } : {});
};

describe('kpi.off_track: once per crossing into off track', () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
  });

  it('is sent once while the KPI stays off track, and again after it came back and fell again', async () => {
    const kpi = tenant.kpis[0]!;
    // 100 against 200: a miss of half the target, far beyond the 10 % tolerance.
    await history(kpi, 3, 200);
    await run();
    await run();
    const events = eventsOf(tenant, 'kpi.off_track');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'kpi.off_track',
      tenantId: tenant.tenant.id,
      data: { kpiId: kpi.id, name: kpi.name, status: 'off_track', measurement: { target: 200 } },
    });
    // Back on track: no event.
    await putMeasurement(kpi, ...month(3), 210, { target: 200 });
    await run();
    expect(eventsOf(tenant, 'kpi.off_track')).toHaveLength(1);
    // Off track again: a new crossing, a new event.
    await putMeasurement(kpi, ...month(4), 20, { target: 200 });
    await run();
    await run();
    expect(eventsOf(tenant, 'kpi.off_track')).toHaveLength(2);
  });
});

describe('kpi.off_pace: once each time the chance of the next target crosses 50 %', () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await createTestTenant({ kpiTypes: ['BSC_KPI', 'THEME_KPI'] });
  });

  it('falls below: one event; rises back: one event; steady: none', async () => {
    const kpi = tenant.kpis[0]!;
    // Around 100, aiming for 150: unlikely next month.
    await history(kpi, 12, 150);
    await run();
    await run();
    let events = eventsOf(tenant, 'kpi.off_pace');
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({
      kpiId: kpi.id,
      onPace: false,
      target: 150,
      direction: 'higher_is_better',
      periodStart: '2025-01-01',
      periodEnd: '2025-01-31',
    });
    expect(events[0]?.data.probability).toBeLessThan(0.5);
    // A target of 60 for the newest month: next month very likely meets it.
    await putMeasurement(kpi, ...month(12), 101, { target: 60 });
    await run();
    await run();
    events = eventsOf(tenant, 'kpi.off_pace');
    expect(events).toHaveLength(2);
    expect(events[1]?.data).toMatchObject({ onPace: true, target: 60, periodStart: '2025-02-01' });
    expect(events[1]?.data.probability).toBeGreaterThan(0.5);
  });

  it('a KPI first seen on pace, or with too little history, sends nothing', async () => {
    const kpi = tenant.kpis[1]!;
    await history(kpi, 12, 50);
    await run();
    const short = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    await history(short.kpis[0]!, 4, 500);
    await run();
    expect(eventsOf(tenant, 'kpi.off_pace').filter((e) => e.data.kpiId === kpi.id)).toEqual([]);
    expect(eventsOf(short, 'kpi.off_pace')).toEqual([]);
  });

  it('a publish that fails is taken back and sent by the next run', async () => {
    const other = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    await history(other.kpis[0]!, 12, 150);
    const refuse = async (event: WebhookEvent) => {
      if (event.tenantId === other.tenant.id) throw new Error('queue down');
      published.push(event);
    };
    const failed = await run({ publish: refuse });
    expect(failed.failed).toBeGreaterThanOrEqual(1);
    expect(eventsOf(other, 'kpi.off_pace')).toEqual([]);
    await run();
    await run();
    expect(eventsOf(other, 'kpi.off_pace')).toHaveLength(1);
  });
});
