import { describe, expect, it } from 'vitest';
import type { PullBinding } from '../../../../lib/domain/pull-integration';
import { expressionProblem, extract, periodOf } from '../../../../lib/pull/extract';

const KPI = '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f';
const OTHER = '01936f0e-8a10-7f0b-8c55-1d2e3f405162';
const AT = Date.parse('2026-11-27T10:00:00.000Z');
const binding = (fields: Partial<PullBinding> = {}): PullBinding => ({
  kpiId: KPI,
  kpiType: 'BSC_KPI',
  actual: 'data.mrr',
  ...fields,
});

describe('JMESPath expressions (Powertools)', () => {
  it('accepts valid expressions, also ones that fail only on some data', () => {
    for (const expression of [
      'data.mrr',
      'items[0].value',
      'sum(items[*].n)',
      'to_number(total)',
      'length(a)',
    ]) {
      expect(expressionProblem(expression), expression).toBeUndefined();
    }
  });

  it('refuses what does not parse or names an unknown function', () => {
    for (const expression of ['data.[', 'items[', 'no_such_function(a)', '']) {
      expect(expressionProblem(expression), expression).toMatch(/^is not a valid JMESPath expression/);
    }
  });
});

describe('extracting a binding’s values', () => {
  it('reads actual, target and forecast, for the current month by default', () => {
    const [result] = extract(
      [binding({ target: 'data.goal', forecast: 'data.forecast' })],
      'month',
      { data: { mrr: 248_500.5, goal: 260_000, forecast: 251_000 } },
      AT,
    );
    expect(result).toMatchObject({
      actual: 248_500.5,
      target: 260_000,
      forecast: 251_000,
      periodStart: '2026-11-01',
      periodEnd: '2026-11-30',
      problem: null,
      measurement: {
        kpiId: KPI,
        kpiType: 'BSC_KPI',
        actual: 248_500.5,
        target: 260_000,
        forecast: 251_000,
        periodStart: '2026-11-01',
        periodEnd: '2026-11-30',
      },
    });
  });

  it('says why a binding fails: the path matched nothing, not a number (never the value), not storable', () => {
    const answer = { data: { mrr: 'secret-looking text', huge: 1e200, small: 1e-200, list: [1, 2] } };
    const results = extract(
      [
        binding({ actual: 'data.missing' }),
        binding({ kpiId: OTHER, actual: 'data.mrr' }),
        binding({ actual: 'data.huge' }),
        binding({ actual: 'data.small' }),
        binding({ actual: 'data.list' }),
        binding({ actual: 'abs(data.mrr)' }),
      ],
      'day',
      answer,
      AT,
    );
    expect(results.map((r) => r.problem)).toEqual([
      'actual: the path matched nothing',
      'actual: not a number (found a string; to_number() converts a numeric string)',
      expect.stringMatching(/^actual: must be 0 or a number whose magnitude is between/),
      expect.stringMatching(/^actual: must be 0 or a number whose magnitude is between/),
      'actual: not a number (found an array; to_number() converts a numeric string)',
      expect.stringMatching(/^actual: Invalid argument type for function abs\(\)/),
    ]);
    for (const result of results) expect(result.measurement).toBeUndefined();
    expect(JSON.stringify(results)).not.toContain('secret-looking');
  });

  it('a target or forecast that fails fails the binding; one absent is none', () => {
    const [withBad, without] = extract(
      [binding({ target: 'data.nothing' }), binding({ kpiId: OTHER })],
      'month',
      { data: { mrr: 5 } },
      AT,
    );
    expect(withBad?.problem).toBe('target: the path matched nothing');
    const [both] = extract([binding({ actual: 'data.none', target: 'data.nothing' })], 'month', {}, AT);
    expect(both?.problem).toBe('actual: the path matched nothing; target: the path matched nothing');
    const [unstorable] = extract(
      [binding({ actual: 'data.huge', target: 'data.huge' })],
      'month',
      { data: { huge: 1e200 } },
      AT,
    );
    expect(unstorable?.problem).toMatch(/^actual: must be 0 or .+; target: must be 0 or .+$/);
    expect(without?.measurement).toMatchObject({ actual: 5, target: undefined, forecast: undefined });
  });

  it('stores -0 as 0, as a push does', () => {
    const [result] = extract([binding({ actual: 'data.mrr' })], 'day', { data: { mrr: -0 } }, AT);
    expect(Object.is(result?.measurement?.actual, 0)).toBe(true);
  });

  it('refuses both bindings of one KPI that land on the same period, as a batch refuses a repeated (KPI, period)', () => {
    const results = extract(
      [binding(), binding({ actual: 'data.other' })],
      'month',
      { data: { mrr: 1, other: 2 } },
      AT,
    );
    expect(results.map((r) => r.problem)).toEqual([
      'same KPI and period as bindings[1]',
      'same KPI and period as bindings[0]',
    ]);
  });
});

describe('what a binding reads', () => {
  it('is nothing for an explicit null; an expression that cannot run says so, never why in the data', () => {
    const [nullValue, broken] = extract(
      [binding({ actual: 'data.mrr' }), binding({ kpiId: OTHER, actual: 'data.[' })],
      'day',
      { data: { mrr: null } },
      AT,
    );
    expect(nullValue?.problem).toBe('actual: the path matched nothing');
    expect(broken?.problem).toBe('actual: the expression could not be evaluated');
  });

  it('a period read from the answer: exactly YYYY-MM-DD, or a date-time by its UTC day; nothing else', () => {
    const period = { start: 'p.from', end: 'p.to' };
    const read = (from: unknown, to: unknown = '2026-10-31') =>
      extract([binding()], period, { data: { mrr: 1 }, p: { from, to } }, AT)[0];
    expect(read('2026-10-01T23:30:00-02:00')?.measurement).toMatchObject({ periodStart: '2026-10-02' });
    for (const [from, found] of [
      ['x2026-10-01', 'a string'],
      ['2026-10-01x', 'a string'],
      ['2026-13-45T00:00:00Z', 'a string'],
      ['T2026-10-01', 'a string'],
      ['+002026-10-01T00:00:00Z', 'a string'], // a date-time JavaScript reads, with a six-digit year

      [20261001, 'a number'],
      [['2026-10-01'], 'an array'],
    ] as const) {
      expect(read(from)?.problem, String(from)).toBe(`period start: not a date YYYY-MM-DD (found ${found})`);
    }
    expect(read(null)?.problem).toBe('period start: the path matched nothing');
    const [broken] = extract([binding()], { start: 'p.[', end: 'p.to' }, { data: { mrr: 1 } }, AT);
    expect(broken?.problem).toBe('period start: the expression could not be evaluated');
    const [brokenEnd] = extract(
      [binding()],
      { start: 'p.from', end: 'p.[' },
      { data: { mrr: 1 }, p: { from: '2026-10-01' } },
      AT,
    );
    expect(brokenEnd?.problem).toBe('period end: the expression could not be evaluated');
  });
});

describe('the period a value stands for', () => {
  it('day, ISO week (Monday to Sunday), month, quarter of the run (UTC)', () => {
    expect(periodOf('day', AT)).toEqual(['2026-11-27', '2026-11-27']);
    expect(periodOf('week', AT)).toEqual(['2026-11-23', '2026-11-29']);
    expect(periodOf('week', Date.parse('2026-11-23T00:00:00Z'))).toEqual(['2026-11-23', '2026-11-29']);
    expect(periodOf('month', Date.parse('2026-02-10T00:00:00Z'))).toEqual(['2026-02-01', '2026-02-28']);
    expect(periodOf('quarter', AT)).toEqual(['2026-10-01', '2026-12-31']);
    expect(periodOf('quarter', Date.parse('2026-02-10T00:00:00Z'))).toEqual(['2026-01-01', '2026-03-31']);
  });

  it('read from the answer: dates, or date-times by their UTC day; a missing or malformed one fails every binding', () => {
    const period = { start: 'period.from', end: 'period.to' };
    const [read] = extract(
      [binding()],
      period,
      { data: { mrr: 1 }, period: { from: '2026-10-01', to: '2026-10-31T23:00:00Z' } },
      AT,
    );
    expect(read?.measurement).toMatchObject({ periodStart: '2026-10-01', periodEnd: '2026-10-31' });
    const [missing] = extract([binding()], period, { data: { mrr: 1 }, period: { from: '2026-10-01' } }, AT);
    expect(missing?.problem).toBe('period end: the path matched nothing');
    const [malformed] = extract(
      [binding()],
      period,
      { data: { mrr: 1 }, period: { from: 'October', to: '2026-10-31' } },
      AT,
    );
    expect(malformed?.problem).toBe('period start: not a date YYYY-MM-DD (found a string)');
    const [reversed] = extract(
      [binding()],
      period,
      { data: { mrr: 1 }, period: { from: '2026-10-31', to: '2026-10-01' } },
      AT,
    );
    expect(reversed?.problem).toBe('periodStart: must not be after periodEnd');
    const [invalid] = extract(
      [binding()],
      period,
      { data: { mrr: 1 }, period: { from: '2026-02-30', to: '2026-03-01' } },
      AT,
    );
    expect(invalid?.problem).toMatch(/^periodStart: must be a calendar date/);
  });
});
