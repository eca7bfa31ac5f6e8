import { describe, expect, it } from 'vitest';
import { CADENCE_HOURS, KPI_CADENCES, type KpiCadence } from '../../../../lib/domain/kpi';
import { kpiArrivals, kpiQuietness, lastArrival } from '../../../../lib/kpis/quiet';

const HOUR_MS = 3_600_000;
const NOW = Date.parse('2026-11-22T12:00:00.000Z');
const ago = (hours: number) => new Date(NOW - hours * HOUR_MS).toISOString();
const CREATED = '2026-01-01T00:00:00.000Z';

const kpi = (cadence: KpiCadence, graceHours = 1) => ({ cadence, graceHours, createdAt: CREATED });

describe('kpiQuietness: quiet when nothing arrived for cadence plus grace', () => {
  it('daily with the default hour of grace: quiet at 25 h exactly, not a millisecond before', () => {
    expect(kpiQuietness(kpi('daily'), ago(25), NOW)).toEqual({ quiet: true, quietSince: ago(0) });
    expect(kpiQuietness(kpi('daily'), ago(25), NOW - 1).quiet).toBe(false);
    expect(kpiQuietness(kpi('daily'), ago(24.5), NOW)).toEqual({
      quiet: false,
      quietSince: new Date(NOW + 0.5 * HOUR_MS).toISOString(),
    });
  });

  it.each([
    ['daily', 24],
    ['weekly', 168],
    ['monthly', 744],
  ] as const)('%s is %d hours long: a month is 31 days', (cadence, hours) => {
    expect(CADENCE_HOURS[cadence]).toBe(hours);
    expect(kpiQuietness(kpi(cadence, 0), ago(hours), NOW).quiet).toBe(true);
    expect(kpiQuietness(kpi(cadence, 0), ago(hours - 0.01), NOW).quiet).toBe(false);
  });

  it('adds the grace period to the cadence', () => {
    expect(kpiQuietness(kpi('weekly', 48), ago(168 + 47), NOW).quiet).toBe(false);
    expect(kpiQuietness(kpi('weekly', 48), ago(168 + 48), NOW).quiet).toBe(true);
  });

  it('a KPI without a cadence is never quiet and has no quietSince, even without any data', () => {
    expect(kpiQuietness(kpi('none'), null, NOW)).toEqual({ quiet: false, quietSince: null });
    expect(kpiQuietness(kpi('none'), ago(10_000), NOW)).toEqual({ quiet: false, quietSince: null });
  });

  it('without any measurement, the window counts from the KPI’s creation', () => {
    const created = { ...kpi('daily', 0), createdAt: ago(30) };
    expect(kpiQuietness(created, null, NOW)).toEqual({ quiet: true, quietSince: ago(6) });
    expect(kpiQuietness({ ...created, createdAt: ago(2) }, null, NOW).quiet).toBe(false);
  });

  it('covers every cadence', () => {
    for (const cadence of KPI_CADENCES) {
      expect(kpiQuietness(kpi(cadence), ago(10_000), NOW).quiet).toBe(cadence !== 'none');
    }
  });
});

describe('lastArrival: the newest arrival among the newest periods', () => {
  it('is the newest receivedAt, whatever the period order (a re-push of an older period counts)', () => {
    expect(
      lastArrival([
        { receivedAt: ago(40), updatedAt: ago(40) },
        { receivedAt: ago(1), updatedAt: ago(1) },
      ]),
    ).toBe(ago(1));
  });

  it('a record without receivedAt (written before push kept it) counts as received when last updated', () => {
    expect(lastArrival([{ receivedAt: null, updatedAt: ago(3) }])).toBe(ago(3));
  });

  it('is null without measurements', () => {
    expect(lastArrival([])).toBeNull();
  });

  it('kpiArrivals combines both', () => {
    expect(kpiArrivals(kpi('daily'), [{ receivedAt: ago(26), updatedAt: ago(26) }], NOW)).toEqual({
      lastMeasurementAt: ago(26),
      quiet: true,
      quietSince: ago(1),
    });
  });
});
