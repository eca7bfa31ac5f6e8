import { describe, expect, it } from 'vitest';
import {
  currentPeriod,
  isWholePeriod,
  KPI_PERIODS,
  periodContaining,
  periodMismatchMessage,
  periodOfHistory,
  resolvePeriod,
} from '../../../../lib/domain/period';

const span = (periodStart: string, periodEnd: string) => ({ periodStart, periodEnd });

describe('the period that holds a day', () => {
  it.each([
    // A day is itself.
    ['day', '2026-03-15', '2026-03-15', '2026-03-15'],
    // ISO weeks run Monday to Sunday: a Sunday ends its week, a Monday starts one.
    ['week', '2026-12-02', '2026-11-30', '2026-12-06'],
    ['week', '2026-11-30', '2026-11-30', '2026-12-06'],
    ['week', '2026-12-06', '2026-11-30', '2026-12-06'],
    ['week', '2026-12-07', '2026-12-07', '2026-12-13'],
    // Weeks across years: 2027-01-01 is a Friday, in the week of Monday 2026-12-28 (ISO week 53).
    ['week', '2027-01-01', '2026-12-28', '2027-01-03'],
    ['week', '2026-01-01', '2025-12-29', '2026-01-04'],
    // A leap year's February and a common year's.
    ['month', '2028-02-10', '2028-02-01', '2028-02-29'],
    ['month', '2026-02-28', '2026-02-01', '2026-02-28'],
    ['month', '2100-02-01', '2100-02-01', '2100-02-28'],
    ['month', '2000-02-15', '2000-02-01', '2000-02-29'],
    ['month', '2026-12-31', '2026-12-01', '2026-12-31'],
    // Quarters end in March, June, September and December.
    ['quarter', '2026-01-01', '2026-01-01', '2026-03-31'],
    ['quarter', '2026-03-31', '2026-01-01', '2026-03-31'],
    ['quarter', '2026-04-01', '2026-04-01', '2026-06-30'],
    ['quarter', '2026-08-15', '2026-07-01', '2026-09-30'],
    ['quarter', '2026-12-31', '2026-10-01', '2026-12-31'],
    ['year', '2026-07-04', '2026-01-01', '2026-12-31'],
    ['year', '2028-12-31', '2028-01-01', '2028-12-31'],
  ] as const)('%s of %s is %s to %s', (period, day, start, end) => {
    expect(periodContaining(period, day)).toEqual(span(start, end));
  });

  it('every period holds its own start and end, and is whole', () => {
    for (const period of KPI_PERIODS) {
      const whole = periodContaining(period, '2028-02-29');
      expect(periodContaining(period, whole.periodStart)).toEqual(whole);
      expect(periodContaining(period, whole.periodEnd)).toEqual(whole);
      expect(isWholePeriod(period, whole)).toBe(true);
    }
  });
});

describe('the current period is that of the UTC day', () => {
  it('counts the UTC calendar day, not a local one', () => {
    // 23:30 on Sunday 2026-12-06 in UTC is Monday in Berlin: still the week of 2026-11-30 here.
    expect(currentPeriod('week', Date.parse('2026-12-06T23:30:00Z'))).toEqual(
      span('2026-11-30', '2026-12-06'),
    );
    expect(currentPeriod('week', Date.parse('2026-12-07T00:00:00Z'))).toEqual(
      span('2026-12-07', '2026-12-13'),
    );
    // 2026-12-31T23:59:59.999Z is still December; a millisecond later, January of the next year.
    expect(currentPeriod('month', Date.parse('2026-12-31T23:59:59.999Z'))).toEqual(
      span('2026-12-01', '2026-12-31'),
    );
    expect(currentPeriod('year', Date.parse('2027-01-01T00:00:00.000Z'))).toEqual(
      span('2027-01-01', '2027-12-31'),
    );
    expect(currentPeriod('day', Date.parse('2026-12-02T00:45:00+02:00'))).toEqual(
      span('2026-12-01', '2026-12-01'),
    );
  });
});

describe('whole periods', () => {
  it.each([
    ['week', '2026-11-30', '2026-12-06', true],
    ['week', '2026-12-01', '2026-12-07', false], // seven days, but Tuesday to Monday
    ['week', '2026-12-01', '2026-12-31', false],
    ['month', '2026-02-01', '2026-02-28', true],
    ['month', '2028-02-01', '2028-02-28', false], // a leap year's February has 29 days
    ['month', '2026-01-01', '2026-03-31', false], // a quarter is not a month
    ['quarter', '2026-01-01', '2026-03-31', true],
    ['quarter', '2026-02-01', '2026-04-30', false],
    ['day', '2026-03-15', '2026-03-15', true],
    ['day', '2026-03-15', '2026-03-16', false],
    ['year', '2026-01-01', '2026-12-31', true],
    ['year', '2026-01-01', '2026-12-30', false],
  ] as const)('%s: %s to %s is whole: %s', (period, start, end, whole) => {
    expect(isWholePeriod(period, span(start, end))).toBe(whole);
  });
});

describe('resolving the bounds a measurement was given', () => {
  const now = Date.parse('2026-12-02T00:45:00Z');

  it('no bounds: the current period of the KPI (a monthly KPI: the current month)', () => {
    expect(resolvePeriod('month', {}, now)).toEqual({ ok: true, span: span('2026-12-01', '2026-12-31') });
    expect(resolvePeriod('week', {}, now)).toEqual({ ok: true, span: span('2026-11-30', '2026-12-06') });
    expect(resolvePeriod('quarter', {}, now)).toEqual({ ok: true, span: span('2026-10-01', '2026-12-31') });
  });

  it('one bound: the period that holds it, when it is that period’s own bound', () => {
    expect(resolvePeriod('week', { periodStart: '2026-11-30' }, now)).toEqual({
      ok: true,
      span: span('2026-11-30', '2026-12-06'),
    });
    expect(resolvePeriod('week', { periodEnd: '2026-12-06' }, now)).toEqual({
      ok: true,
      span: span('2026-11-30', '2026-12-06'),
    });
    expect(resolvePeriod('week', { periodStart: '2026-12-01' }, now)).toEqual({
      ok: false,
      expected: span('2026-11-30', '2026-12-06'),
    });
    expect(resolvePeriod('month', { periodEnd: '2026-12-30' }, now)).toEqual({
      ok: false,
      expected: span('2026-12-01', '2026-12-31'),
    });
  });

  it('both bounds: exactly one period, else the period that holds periodStart is expected', () => {
    expect(resolvePeriod('month', span('2026-09-01', '2026-09-30'), now)).toEqual({
      ok: true,
      span: span('2026-09-01', '2026-09-30'),
    });
    // A month for a weekly KPI: the week that holds its first day.
    expect(resolvePeriod('week', span('2026-12-01', '2026-12-31'), now)).toEqual({
      ok: false,
      expected: span('2026-11-30', '2026-12-06'),
    });
    // A quarter for a monthly KPI: the month of its first day.
    expect(resolvePeriod('month', span('2026-07-01', '2026-09-30'), now)).toEqual({
      ok: false,
      expected: span('2026-07-01', '2026-07-31'),
    });
    expect(resolvePeriod('month', span('2026-07-01', '2026-07-30'), now)).toEqual({
      ok: false,
      expected: span('2026-07-01', '2026-07-31'),
    });
  });

  it('the problem names the period and the dates expected', () => {
    const message = periodMismatchMessage('week', span('2026-11-30', '2026-12-06'));
    expect(message).toContain('period is week');
    expect(message).toContain('Monday to Sunday');
    expect(message).toContain('periodStart 2026-11-30');
    expect(message).toContain('periodEnd 2026-12-06');
  });
});

describe('the period a history follows', () => {
  it('is the shortest kind every span is a whole one of', () => {
    expect(periodOfHistory([span('2026-11-30', '2026-12-06'), span('2026-11-23', '2026-11-29')])).toBe(
      'week',
    );
    expect(periodOfHistory([span('2026-11-01', '2026-11-30'), span('2026-10-01', '2026-10-31')])).toBe(
      'month',
    );
    expect(periodOfHistory([span('2026-10-01', '2026-12-31')])).toBe('quarter');
    expect(periodOfHistory([span('2026-12-01', '2026-12-01'), span('2026-12-02', '2026-12-02')])).toBe('day');
    expect(periodOfHistory([span('2026-01-01', '2026-12-31')])).toBe('year');
  });

  it('is none for a mixed history, spans of no kind, or no history', () => {
    expect(
      periodOfHistory([span('2026-11-30', '2026-12-06'), span('2026-11-01', '2026-11-30')]),
    ).toBeUndefined();
    expect(periodOfHistory([span('2026-12-01', '2026-12-07')])).toBeUndefined();
    expect(periodOfHistory([])).toBeUndefined();
  });
});
