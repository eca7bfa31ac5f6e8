import type { PullBinding, PullPeriod } from '../domain/pull-integration';
import { type MeasurementInput, measurementInputSchema } from '../push/measurement-schema';
import {
  boundsProblem,
  ExpressionBudgetError,
  evaluateBounded,
  JMESPathTypeError,
  NotDecimalError,
  parseExpression,
  type RunBudget,
  runBudget,
} from './expression';

/**
 * Reading KPI values out of a source's answer: each binding's JMESPath expressions, evaluated by
 * Powertools' JMESPath (no evaluator of our own) within the bounds of ./expression.ts, and the period
 * the values stand for. What comes out
 * is checked by the push's own measurement schema (lib/push/measurement-schema.ts): the same numbers
 * are storable, the same periods valid. A binding that yields nothing usable says why, in words that
 * name the field and the kind of value found, never the value itself or any other part of the body.
 */

/** Why an expression cannot be used at all, or undefined: checked when an integration is written. */
export const expressionProblem = (expression: string): string | undefined => {
  let ast: ReturnType<typeof parseExpression>;
  try {
    ast = parseExpression(expression);
  } catch (error) {
    return `is not a valid JMESPath expression (${(error as Error).message})`;
  }
  const bounds = boundsProblem(ast);
  if (bounds) return `is refused: it ${bounds}`;
  try {
    evaluateBounded(expression, {}, runBudget());
    return undefined;
  } catch (error) {
    // A function given a value of the wrong type fails on this empty document only: the expression is fine.
    if (error instanceof JMESPathTypeError || error instanceof NotDecimalError) return undefined;
    return `is not a valid JMESPath expression (${(error as Error).message})`;
  }
};

/** What a value is, for a problem that must not show it; null is "matched nothing" before this. */
const kindOf = (value: unknown) => (Array.isArray(value) ? 'an array' : `a ${typeof value}`);

type Evaluated = { ok: true; value: unknown } | { ok: false; problem: string };

const evaluate = (expression: string, answer: unknown, budget: RunBudget): Evaluated => {
  try {
    return { ok: true, value: evaluateBounded(expression, answer, budget) };
  } catch (error) {
    // Type errors name the function and the types involved, never a value; the others name a bound
    // or the kind of text to_number() was given.
    if (error instanceof JMESPathTypeError || error instanceof NotDecimalError) {
      return { ok: false, problem: error.message };
    }
    if (error instanceof ExpressionBudgetError) {
      return { ok: false, problem: `the expression was stopped: it ${error.message}` };
    }
    return { ok: false, problem: 'the expression could not be evaluated' };
  }
};

/** A number read from the answer, or why there is none (the path matched nothing, not a number). */
const numberAt = (field: string, expression: string, answer: unknown, budget: RunBudget) => {
  const evaluated = evaluate(expression, answer, budget);
  if (!evaluated.ok) return { problem: `${field}: ${evaluated.problem}` };
  const { value } = evaluated;
  if (value == null) return { problem: `${field}: the path matched nothing` };
  if (typeof value !== 'number') {
    return {
      problem: `${field}: not a number (found ${kindOf(value)}; to_number() converts a numeric string)`,
    };
  }
  return { value };
};

const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The period of a unit that contains the instant `at` (UTC): `[start, end]` as calendar dates. */
export const periodOf = (unit: Exclude<PullPeriod, object>, at: number): [string, string] => {
  const date = new Date(at);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const dayStart = Date.UTC(year, month, date.getUTCDate());
  switch (unit) {
    case 'day':
      return [utcDate(dayStart), utcDate(dayStart)];
    case 'week': {
      const monday = dayStart - ((date.getUTCDay() + 6) % 7) * 86_400_000;
      return [utcDate(monday), utcDate(monday + 6 * 86_400_000)];
    }
    case 'month':
      return [utcDate(Date.UTC(year, month, 1)), utcDate(Date.UTC(year, month + 1, 0))];
    case 'quarter': {
      const first = month - (month % 3);
      return [utcDate(Date.UTC(year, first, 1)), utcDate(Date.UTC(year, first + 3, 0))];
    }
  }
};

/** A day read from the answer: `YYYY-MM-DD`, or a date-time whose UTC day counts. */
const dayAt = (field: string, expression: string, answer: unknown, budget: RunBudget) => {
  const evaluated = evaluate(expression, answer, budget);
  if (!evaluated.ok) return { problem: `${field}: ${evaluated.problem}` };
  const { value } = evaluated;
  if (value == null) return { problem: `${field}: the path matched nothing` };
  if (typeof value === 'string') {
    if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return { value };
    const parsed = Date.parse(value);
    if (/^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(parsed)) return { value: utcDate(parsed) };
  }
  return { problem: `${field}: not a date YYYY-MM-DD (found ${kindOf(value)})` };
};

/** The period the answer's values stand for, or why it cannot be read. */
export const periodFrom = (
  period: PullPeriod,
  answer: unknown,
  at: number,
  budget: RunBudget = runBudget(),
): { start: string; end: string } | { problem: string } => {
  if (typeof period === 'string') {
    const [start, end] = periodOf(period, at);
    return { start, end };
  }
  const start = dayAt('period start', period.start, answer, budget);
  if (start.value === undefined) return { problem: start.problem as string };
  const end = dayAt('period end', period.end, answer, budget);
  if (end.value === undefined) return { problem: end.problem as string };
  return { start: start.value, end: end.value };
};

/** One binding's values as extracted, and the measurement they make, or why they make none. */
export interface Extracted {
  binding: PullBinding;
  actual: number | null;
  target: number | null;
  forecast: number | null;
  periodStart: string | null;
  periodEnd: string | null;
  /** The measurement, checked as a push's is; undefined when `problem` says why not. */
  measurement: MeasurementInput | undefined;
  problem: string | null;
}

/**
 * Every binding's values in the answer. The measurements are checked one by one with the push's
 * measurement schema; two bindings of one KPI that land on the same period are refused both, as a
 * push batch refuses a repeated (KPI, period). All of them share one run's evaluation budget.
 */
export const extract = (
  bindings: readonly PullBinding[],
  period: PullPeriod,
  answer: unknown,
  at: number,
  budget: RunBudget = runBudget(),
): Extracted[] => {
  const span = periodFrom(period, answer, at, budget);
  const results = bindings.map((binding): Extracted => {
    const fields = { actual: binding.actual, target: binding.target, forecast: binding.forecast };
    const read: Record<string, number> = {};
    const problems: string[] = [];
    for (const [field, expression] of Object.entries(fields)) {
      if (expression === undefined) continue;
      const found = numberAt(field, expression, answer, budget);
      if ('problem' in found) problems.push(found.problem as string);
      else read[field] = found.value as number;
    }
    const base = {
      binding,
      actual: read.actual ?? null,
      target: read.target ?? null,
      forecast: read.forecast ?? null,
      periodStart: 'start' in span ? span.start : null,
      periodEnd: 'end' in span ? span.end : null,
    };
    if ('problem' in span) problems.unshift(span.problem);
    if (problems.length > 0) return { ...base, measurement: undefined, problem: problems.join('; ') };
    const parsed = measurementInputSchema.safeParse({
      kpiId: binding.kpiId,
      kpiType: binding.kpiType,
      actual: base.actual,
      ...(base.target === null ? {} : { target: base.target }),
      ...(base.forecast === null ? {} : { forecast: base.forecast }),
      periodStart: base.periodStart,
      periodEnd: base.periodEnd,
    });
    if (!parsed.success) {
      const problem = parsed.error.issues
        .map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`)
        .join('; ');
      return { ...base, measurement: undefined, problem };
    }
    return { ...base, measurement: parsed.data, problem: null };
  });
  const identity = (m: MeasurementInput) => `${m.kpiId}|${m.periodStart}|${m.periodEnd}`;
  const seen = new Map<string, number>();
  results.forEach((result, index) => {
    if (!result.measurement) return;
    const first = seen.get(identity(result.measurement));
    if (first === undefined) {
      seen.set(identity(result.measurement), index);
      return;
    }
    for (const [at, other] of [
      [first, index],
      [index, first],
    ] as const) {
      const repeated = results[at] as Extracted;
      results[at] = {
        ...repeated,
        measurement: undefined,
        problem: `same KPI and period as bindings[${other}]`,
      };
    }
  });
  return results;
};
