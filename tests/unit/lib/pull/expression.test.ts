import { describe, expect, it } from 'vitest';
import type { PullBinding } from '../../../../lib/domain/pull-integration';
import {
  boundsProblem,
  EXPRESSION_LIMITS,
  ExpressionBudgetError,
  type ExpressionLimits,
  evaluateBounded,
  NotDecimalError,
  parseExpression,
  runBudget,
} from '../../../../lib/pull/expression';
import { expressionProblem, extract } from '../../../../lib/pull/extract';

/** The two expressions of the review: one took 15.7 s on 1 KB, the other exhausted a 1 GB heap. */
const DOUBLING = `${'[@,@]|'.repeat(19)}length(to_string(@))`;
const FLATTENING = `${'[@,@][]|'.repeat(29)}length(@)`;
const KB_ANSWER = {
  items: Array.from({ length: 16 }, (_, i) => ({ id: i, name: `item ${i}`, value: i * 1.5 })),
};

/** The run-time bounds alone: what the save-time check would refuse is let through to them. */
const unchecked = (changes: Partial<ExpressionLimits> = {}): ExpressionLimits => ({
  ...EXPRESSION_LIMITS,
  nodes: Number.MAX_SAFE_INTEGER,
  depth: Number.MAX_SAFE_INTEGER,
  amplification: Number.MAX_SAFE_INTEGER,
  ...changes,
});

const stopped = (expression: string, value: unknown, limits: ExpressionLimits, now?: () => number) => {
  try {
    evaluateBounded(expression, value, runBudget(limits, now));
  } catch (error) {
    if (error instanceof ExpressionBudgetError) return error.message;
    throw error;
  }
  return undefined;
};

describe('expressions refused when saved', () => {
  it('refuses the two bombs and the same behind `a && (…)`, naming the bound', () => {
    expect(DOUBLING).toHaveLength(134);
    expect(FLATTENING.length).toBeGreaterThan(200);
    expect(expressionProblem(DOUBLING)).toBe(
      'is refused: it can copy its input 524288 times (multi-selects along pipes or projections); at most 16 is allowed',
    );
    expect(expressionProblem(FLATTENING)).toMatch(/^is refused: it can copy its input \d+ times/);
    expect(expressionProblem(`a && (${DOUBLING})`)).toMatch(
      /^is refused: it can copy its input 524288 times/,
    );
  });

  it('counts copies: a multi-select adds its members, pipes and projections multiply', () => {
    const copies = (expression: string, amplification: number) =>
      boundsProblem(parseExpression(expression), { ...EXPRESSION_LIMITS, amplification });
    expect(copies('[@,@]', 2)).toBeUndefined();
    expect(copies('[@,@]', 1)).toMatch(/copy its input 2 times/);
    expect(copies('{a: @, b: @, c: @}', 2)).toMatch(/copy its input 3 times/);
    expect(copies('[@,@]|[@,@]', 3)).toMatch(/copy its input 4 times/);
    expect(copies('[@,@].[@,@,@]', 5)).toMatch(/copy its input 6 times/);
    expect(copies('items[*].[@,@]', 1)).toMatch(/copy its input 2 times/);
    expect(copies('[[@,@],[@,@]][]', 3)).toMatch(/copy its input 4 times/);
    expect(copies('to_string([@,@])', 1)).toMatch(/copy its input 2 times/);
    expect(copies('sort_by(items, &[@,@])', 2)).toMatch(/copy its input 3 times/);
    expect(copies('a == b && c || !d', 1)).toBeUndefined();
  });

  it('refuses an expression past its size or nesting, and keeps the ones a source needs', () => {
    const sum = Array.from({ length: 60 }, (_, i) => `f${i}`).join(' || ');
    expect(boundsProblem(parseExpression(sum))).toMatch(/^has \d+ parts; at most 100 are allowed$/);
    expect(boundsProblem(parseExpression('abs(abs(abs(a)))'), { ...EXPRESSION_LIMITS, depth: 3 })).toBe(
      'nests 4 deep; at most 3 is allowed',
    );
    expect(
      boundsProblem(parseExpression('abs(abs(abs(a)))'), { ...EXPRESSION_LIMITS, depth: 4 }),
    ).toBeUndefined();
    for (const expression of [
      'data.mrr',
      'sum(items[*].n)',
      "length(items[?status=='done'])",
      'max_by(items, &mrr).mrr',
      'sort_by(items, &name)[-1].value',
      '{a: x, b: y}',
      'to_number(total)',
    ]) {
      expect(expressionProblem(expression), expression).toBeUndefined();
    }
  });
});

describe('an evaluation within its bounds', () => {
  it('stops both bombs at the weight of one value, long before the heap', () => {
    expect(stopped(DOUBLING, KB_ANSWER, unchecked())).toBe('makes a value larger than 4194304 bytes');
    expect(stopped(FLATTENING, KB_ANSWER, unchecked())).toBe('makes a value larger than 4194304 bytes');
  });

  it('stops at its count of visits, and a run at the count of all its evaluations', () => {
    const answer = { items: Array.from({ length: 100 }, (_, i) => ({ n: i })) };
    expect(stopped('sum(items[*].n)', answer, unchecked({ visits: 102 }))).toBe('visits more than 102 nodes');
    expect(stopped('sum(items[*].n)', answer, unchecked({ visits: 103 }))).toBeUndefined();
    const budget = runBudget(unchecked({ runVisits: 205 }));
    expect(evaluateBounded('sum(items[*].n)', answer, budget)).toBe(4950);
    expect(() => evaluateBounded('sum(items[*].n)', answer, budget)).toThrow(
      "the run's expressions visit more than 205 nodes",
    );
  });

  it('stops at the weight it makes, each and in a run', () => {
    const answer = { text: 'x'.repeat(1000) };
    expect(stopped('[text, text, text]', answer, unchecked({ valueWeight: 2000 }))).toBe(
      'makes a value larger than 2000 bytes',
    );
    expect(stopped('join(`""`, [text, text, text])', answer, unchecked({ madeWeight: 2500 }))).toBe(
      'makes more than 2500 bytes of values',
    );
    const budget = runBudget(unchecked({ runMadeWeight: 2500 }));
    evaluateBounded('to_string(@)', answer, budget);
    evaluateBounded('to_string(@)', answer, budget);
    expect(() => evaluateBounded('to_string(@)', answer, budget)).toThrow(
      "the run's expressions make more than 2500 bytes",
    );
  });

  it('stops at its time and at the run’s, read from the clock every 1,024 visits', () => {
    // 3,000 items, 4 visits each: the clock is read at the start and 11 times after.
    const answer = { items: Array.from({ length: 3000 }, (_, i) => i) };
    const every = 'items[?@ >= `0`]';
    let ticks = 0;
    // Every read of the clock moves it 1 ms.
    const clock = () => ticks++;
    expect(stopped(every, answer, unchecked({ evaluationMs: 10 }), clock)).toBe('takes more than 10 ms');
    ticks = 0;
    expect(stopped(every, answer, unchecked({ evaluationMs: 11 }), clock)).toBeUndefined();
    ticks = 0;
    const budget = runBudget(unchecked({ runMs: 13 }), clock);
    expect(evaluateBounded(every, answer, budget)).toHaveLength(3000);
    expect(() => evaluateBounded(every, answer, budget)).toThrow(
      "the run's expressions take more than 13 ms",
    );
  });

  it('is stopped inside a function’s expression reference too, which the library would turn into null', () => {
    const answer = { items: Array.from({ length: 200 }, (_, i) => ({ n: 200 - i })) };
    expect(stopped('sort_by(items, &n)[0].n', answer, unchecked({ visits: 100 }))).toBe(
      'visits more than 100 nodes',
    );
  });

  it('answers the library’s values within them', () => {
    expect(evaluateBounded('items[?value > `20`].id', KB_ANSWER, runBudget())).toEqual([14, 15]);
    expect(evaluateBounded('max_by(items, &value).name', KB_ANSWER, runBudget())).toBe('item 15');
  });
});

describe('to_number() of a text', () => {
  it('reads decimal numbers only: no empty text, hex, binary or Infinity', () => {
    const read = (text: unknown) => {
      try {
        return evaluateBounded('to_number(v)', { v: text }, runBudget());
      } catch (error) {
        if (error instanceof NotDecimalError) return error.message;
        throw error;
      }
    };
    expect(read('')).toBe('to_number(): an empty text');
    expect(read('  ')).toBe('to_number(): an empty text');
    for (const text of ['0x10', '0b11', '0o7', 'Infinity', '1,5', 'twelve']) {
      expect(read(text), text).toBe('to_number(): a text that is not a decimal number');
    }
    expect(read('12.5')).toBe(12.5);
    expect(read('-3')).toBe(-3);
    expect(read('+.5')).toBe(0.5);
    expect(read('1e3')).toBe(1000);
    expect(read('7.')).toBe(7);
    expect(read(42)).toBe(42);
    expect(read(true)).toBeNull();
  });

  it('makes a binding that reads an empty or a hexadecimal field store nothing, naming the field', () => {
    const binding: PullBinding = {
      kpiId: '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f',
      kpiType: 'BSC_KPI',
      actual: 'to_number(mrr)',
      target: 'to_number(goal)',
    };
    const [result] = extract(
      [binding],
      'month',
      { mrr: '', goal: '0x10' },
      Date.parse('2026-11-27T10:00:00Z'),
    );
    expect(result).toMatchObject({
      actual: null,
      target: null,
      measurement: undefined,
      problem: 'actual: to_number(): an empty text; target: to_number(): a text that is not a decimal number',
    });
    expect(expressionProblem('to_number(mrr)')).toBeUndefined();
  });

  it('names a binding stopped at a bound, and the other bindings of the run still read', () => {
    const bindings: PullBinding[] = [
      { kpiId: '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f', kpiType: 'BSC_KPI', actual: DOUBLING },
      { kpiId: '01936f0e-8a10-7f0b-8c55-1d2e3f405162', kpiType: 'BSC_KPI', actual: 'items[0].value' },
    ];
    const [bomb, other] = extract(bindings, 'month', KB_ANSWER, Date.parse('2026-11-27T10:00:00Z'));
    expect(bomb).toMatchObject({
      measurement: undefined,
      problem:
        'actual: the expression was stopped: it can copy its input 524288 times (multi-selects along pipes or projections); at most 16 is allowed',
    });
    expect(other).toMatchObject({ actual: 0, problem: null });
  });
});
