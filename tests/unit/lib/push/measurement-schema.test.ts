import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseInput } from '../../../../lib/http/validation';
import {
  batchSchema,
  MAX_MEASUREMENT_VALUE,
  MIN_MEASUREMENT_MAGNITUDE,
  measurementInputSchema,
} from '../../../../lib/push/measurement-schema';
import { refusalOf } from '../../../support/refusal';

const kpiId = randomUUID();
const base = { kpiId, kpiType: 'BSC_KPI', actual: 1, periodStart: '2026-01-01', periodEnd: '2026-01-31' };

const parse = (input: unknown) => parseInput(measurementInputSchema, input);

/** The field errors of an input the schema refuses. */
const errorsOf = (schema: typeof measurementInputSchema | typeof batchSchema, input: unknown) =>
  refusalOf(() => parseInput(schema, input)).errors;

const RANGE = 'must be 0 or a number whose magnitude is between 1e-130 and 9007199254740991';

describe('measurement values (what the store can hold)', () => {
  it('accepts 0 and magnitudes from 1e-130 to 2^53 − 1, positive and negative, and stores -0 as 0', () => {
    const values = [
      0,
      MIN_MEASUREMENT_MAGNITUDE,
      -MIN_MEASUREMENT_MAGNITUDE,
      MAX_MEASUREMENT_VALUE,
      -MAX_MEASUREMENT_VALUE,
      0.1,
    ];
    for (const value of values) {
      expect(parse({ ...base, actual: value, target: value, forecast: value })).toMatchObject({
        actual: value,
        target: value,
        forecast: value,
      });
    }
    const negativeZero = parse({ ...base, actual: -0, target: -0, forecast: -0 });
    for (const field of ['actual', 'target', 'forecast'] as const) {
      expect(Object.is(negativeZero[field], 0)).toBe(true);
    }
  });

  it('refuses a magnitude below 1e-130 or above 2^53 − 1, naming the field and the range', () => {
    const values = [9.99e-131, -9.99e-131, MAX_MEASUREMENT_VALUE + 2, -(MAX_MEASUREMENT_VALUE + 2), 1e300];
    for (const value of values) {
      for (const field of ['actual', 'target', 'forecast']) {
        expect(errorsOf(measurementInputSchema, { ...base, [field]: value })).toEqual([
          { path: field, message: RANGE },
        ]);
      }
    }
  });

  it('target and forecast are optional: null or absent is undefined, a number is kept', () => {
    expect(parse({ ...base, target: null, forecast: null })).toMatchObject({
      target: undefined,
      forecast: undefined,
    });
    const { target, forecast } = parse(base);
    expect([target, forecast]).toEqual([undefined, undefined]);
    expect(parse({ ...base, target: 5, forecast: 7 })).toMatchObject({ target: 5, forecast: 7 });
    expect(errorsOf(measurementInputSchema, { ...base, actual: null })).toEqual([
      { path: 'actual', message: 'must be a finite number' },
    ]);
    expect(errorsOf(measurementInputSchema, { ...base, forecast: '7' })).toEqual([
      { path: 'forecast', message: 'must be a finite number or null' },
    ]);
  });
});

describe('measurement period (spec 2.5)', () => {
  const period = (input: Record<string, unknown>) => {
    const { periodStart, periodEnd } = parse({ kpiId, kpiType: 'BSC_KPI', actual: 1, ...input });
    return [periodStart, periodEnd];
  };

  it('a missing bound is the month of the other one', () => {
    expect(period({ periodStart: '2024-02-10' })).toEqual(['2024-02-10', '2024-02-29']);
    expect(period({ periodStart: '2026-12-05' })).toEqual(['2026-12-05', '2026-12-31']);
    expect(period({ periodEnd: '2026-04-20' })).toEqual(['2026-04-01', '2026-04-20']);
    expect(period({ periodStart: '2026-03-03', periodEnd: '2026-03-04' })).toEqual([
      '2026-03-03',
      '2026-03-04',
    ]);
  });

  it('both missing: the current month (UTC), first to last day', () => {
    const today = new Date().toISOString().slice(0, 10);
    const [start, end] = period({}) as [string, string];
    expect(start).toBe(`${today.slice(0, 7)}-01`);
    expect(end.slice(0, 7)).toBe(today.slice(0, 7));
    const dayAfter = new Date(Date.parse(`${end}T00:00:00Z`) + 86_400_000).toISOString();
    expect(dayAfter.slice(8, 10)).toBe('01');
  });

  it('a start after the end is refused on periodStart; the same day is a period', () => {
    expect(
      errorsOf(measurementInputSchema, { ...base, periodStart: '2026-02-02', periodEnd: '2026-02-01' }),
    ).toEqual([{ path: 'periodStart', message: 'must not be after periodEnd' }]);
    expect(period({ periodStart: '2026-02-02', periodEnd: '2026-02-02' })).toEqual([
      '2026-02-02',
      '2026-02-02',
    ]);
  });
});

describe('batch (spec 8)', () => {
  const item = (day: number, kpi = kpiId) => ({
    ...base,
    kpiId: kpi,
    periodStart: `2026-01-${String(day).padStart(2, '0')}`,
  });

  it('holds 1 to 50 measurements', () => {
    const fifty = Array.from({ length: 50 }, () => item(1, randomUUID()));
    expect(parseInput(batchSchema, { measurements: fifty }).measurements).toHaveLength(50);
    expect(errorsOf(batchSchema, { measurements: [] })).toEqual([
      { path: 'measurements', message: 'must contain at least 1 measurement' },
    ]);
    expect(errorsOf(batchSchema, { measurements: [...fifty, item(2)] })).toEqual([
      { path: 'measurements', message: 'must contain at most 50 measurements' },
    ]);
  });

  it('names both elements of a duplicate KPI and period, each pointing at the other', () => {
    expect(errorsOf(batchSchema, { measurements: [item(1), item(2), item(1), item(1)] })).toEqual([
      { path: 'measurements[0]', message: 'same kpiId and period as measurements[2]' },
      { path: 'measurements[2]', message: 'same kpiId and period as measurements[0]' },
      { path: 'measurements[0]', message: 'same kpiId and period as measurements[3]' },
      { path: 'measurements[3]', message: 'same kpiId and period as measurements[0]' },
    ]);
    // Another KPI, or another period end, is another measurement.
    const distinct = [item(1), item(1, randomUUID()), { ...item(1), periodEnd: '2026-01-30' }];
    expect(parseInput(batchSchema, { measurements: distinct }).measurements).toHaveLength(3);
  });
});
