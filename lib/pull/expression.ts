// The package exports `search` only; its parser, tree interpreter and errors are the same modules
// `search` uses (the ESM build, which the bundle and the tests both load), reached by path so that the
// evaluation is bounded from inside the library's own interpreter instead of a copy of it.
import { JMESPathTypeError } from '../../node_modules/@aws-lambda-powertools/jmespath/lib/esm/errors.js';

export { JMESPathTypeError };

import { Functions } from '../../node_modules/@aws-lambda-powertools/jmespath/lib/esm/Functions.js';
import { Parser } from '../../node_modules/@aws-lambda-powertools/jmespath/lib/esm/Parser.js';
import { TreeInterpreter } from '../../node_modules/@aws-lambda-powertools/jmespath/lib/esm/TreeInterpreter.js';
import type { Node } from '../../node_modules/@aws-lambda-powertools/jmespath/lib/esm/types.js';

/**
 * A tenant's JMESPath expression, evaluated by Powertools' parser and interpreter within bounds, so
 * that one expression can neither hold the worker's event loop nor exhaust its heap:
 *
 * - at save time, the parsed expression is refused past a size, a nesting depth and an amplification
 *   (how many copies of its input a multi-select can make, multiplied along pipes and projections);
 * - at run time, every node the interpreter visits is counted, every value it makes is weighed (about
 *   its size as JSON, shared parts counted each time they would be serialised), and the evaluation
 *   stops past a budget of visits, of weight made, of the weight of any one value, or of time. A run
 *   shares one budget across its bindings.
 */

/** The bounds of one evaluation and of one run (every binding's expressions together). */
export const EXPRESSION_LIMITS = {
  /** AST nodes of one expression. */
  nodes: 100,
  /** Nesting of the AST. */
  depth: 20,
  /** Copies of its input one expression can make (e.g. `[@,@]` makes 2, `[@,@]|[@,@]` 4). */
  amplification: 16,
  /** Nodes visited by one evaluation. */
  visits: 200_000,
  /** Weight (about bytes of JSON) of any one value an evaluation makes. */
  valueWeight: 4 * 1024 * 1024,
  /** Weight of all values one evaluation makes. */
  madeWeight: 16 * 1024 * 1024,
  /** Wall time of one evaluation, checked every 1,024 visits. */
  evaluationMs: 250,
  /** Nodes visited by a run's evaluations together. */
  runVisits: 1_000_000,
  /** Weight a run's evaluations make together. */
  runMadeWeight: 64 * 1024 * 1024,
  /** Wall time of a run's evaluations together. */
  runMs: 1000,
} as const;

export type ExpressionLimits = { [K in keyof typeof EXPRESSION_LIMITS]: number };

/** An evaluation stopped at one of its bounds; the message names the bound, never a value. */
export class ExpressionBudgetError extends Error {}

/** `to_number()` found a text that is not a decimal number; the message names its kind, never the text. */
export class NotDecimalError extends Error {}

/** A decimal number as text: digits, an optional fraction and exponent (no hex, binary or blank). */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The standard functions, but `to_number()` of a text reads a decimal number only: JavaScript's
 * `Number()`, which the library uses, makes 0 of an empty text and 16 of `0x10`. The library's
 * interpreter turns an error thrown by a function into null, so the refusal is recorded here and
 * raised by the interpreter below.
 */
class DecimalFunctions extends Functions {
  refused: string | undefined;

  // The interpreter calls a function with its arguments as one array; the library's own method (its
  // signature wrapper) checks and unpacks them, so it gets the array as it came.
  override funcToNumber(args: Parameters<Functions['funcToNumber']>[0]): number | null {
    const [text] = args as unknown as unknown[];
    if (typeof text === 'string' && !DECIMAL.test(text)) {
      this.refused = `to_number(): ${text.trim() === '' ? 'an empty text' : 'a text that is not a decimal number'}`;
      return null;
    }
    return super.funcToNumber(args);
  }
}

const parser = new Parser();

/**
 * The weight of a value: about its size as JSON, with every shared part counted where it appears.
 * Weights are kept per run, so the answer is weighed once however many expressions read it.
 */
const weigher = () => {
  const weights = new WeakMap<object, number>();
  const weigh = (value: unknown): number => {
    if (typeof value === 'string') return value.length + 2;
    if (value === null || typeof value !== 'object') return 8;
    const known = weights.get(value);
    if (known !== undefined) return known;
    let weight = 2;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) weight += weigh(value[i]) + 1;
    } else {
      const record = value as Record<string, unknown>;
      for (const key in record) weight += key.length + 4 + weigh(record[key]);
    }
    weights.set(value, weight);
    return weight;
  };
  /** What a value adds that was not weighed before: its own entries, or a string's length. */
  const made = (value: unknown): number => {
    if (typeof value === 'string') return value.length;
    if (value === null || typeof value !== 'object' || weights.has(value)) return 0;
    return Array.isArray(value) ? value.length + 1 : Object.keys(value).length + 1;
  };
  return { weigh, made };
};

/** What a run's evaluations have spent together. */
export interface RunBudget {
  limits: ExpressionLimits;
  visits: number;
  made: number;
  startedAt: number;
  now: () => number;
  weigher: ReturnType<typeof weigher>;
}

export const runBudget = (
  limits: ExpressionLimits = EXPRESSION_LIMITS,
  now: () => number = performance.now.bind(performance),
): RunBudget => ({ limits, visits: 0, made: 0, startedAt: now(), now, weigher: weigher() });

const TIME_CHECK_EVERY = 1024;

class BoundedInterpreter extends TreeInterpreter {
  #budget: RunBudget;
  #functions: DecimalFunctions;
  #visits = 0;
  #made = 0;
  #startedAt: number;
  // The first bound reached; kept because the library's function calls turn an error into null (an
  // expression reference inside sort_by(), say), so every later visit raises it again.
  #stopped: Error | undefined;

  constructor(budget: RunBudget, functions = new DecimalFunctions()) {
    super({ customFunctions: functions });
    this.#functions = functions;
    this.#budget = budget;
    this.#startedAt = budget.now();
  }

  #stop(error: Error): never {
    this.#stopped ??= error;
    throw this.#stopped;
  }

  override visit(node: Node, value: Visited): ReturnType<TreeInterpreter['visit']> {
    if (this.#stopped) throw this.#stopped;
    const budget = this.#budget;
    const { limits } = budget;
    this.#visits++;
    budget.visits++;
    if (this.#visits > limits.visits)
      this.#stop(new ExpressionBudgetError(`visits more than ${limits.visits} nodes`));
    if (budget.visits > limits.runVisits) {
      this.#stop(
        new ExpressionBudgetError(`the run's expressions visit more than ${limits.runVisits} nodes`),
      );
    }
    if (this.#visits % TIME_CHECK_EVERY === 0) this.#checkTime();
    const result = super.visit(node, value);
    if (this.#stopped) throw this.#stopped;
    if (this.#functions.refused) this.#stop(new NotDecimalError(this.#functions.refused));
    const made = budget.weigher.made(result);
    const weight = budget.weigher.weigh(result);
    this.#made += made;
    budget.made += made;
    if (weight > limits.valueWeight) {
      this.#stop(new ExpressionBudgetError(`makes a value larger than ${limits.valueWeight} bytes`));
    }
    if (this.#made > limits.madeWeight) {
      this.#stop(new ExpressionBudgetError(`makes more than ${limits.madeWeight} bytes of values`));
    }
    if (budget.made > limits.runMadeWeight) {
      this.#stop(
        new ExpressionBudgetError(`the run's expressions make more than ${limits.runMadeWeight} bytes`),
      );
    }
    return result;
  }

  #checkTime() {
    const { limits } = this.#budget;
    const now = this.#budget.now();
    if (now - this.#startedAt > limits.evaluationMs) {
      this.#stop(new ExpressionBudgetError(`takes more than ${limits.evaluationMs} ms`));
    }
    if (now - this.#budget.startedAt > limits.runMs) {
      this.#stop(new ExpressionBudgetError(`the run's expressions take more than ${limits.runMs} ms`));
    }
  }
}

// The interpreter's own value type, as its declaration names it.
type Visited = Parameters<TreeInterpreter['visit']>[1];

/**
 * Copies of its input an expression can make at most: a multi-select adds its members' copies, a pipe,
 * a sub-expression or a projection multiplies its parts', a function adds its arguments'.
 */
const amplification = (node: Node): number => {
  const parts = node.children.filter((child): child is Node => typeof child === 'object' && child !== null);
  const each = parts.map(amplification);
  const sum = each.reduce((a, b) => a + b, 0);
  const product = each.reduce((a, b) => a * b, 1);
  switch (node.type) {
    case 'multi_select_list':
    case 'multi_select_object':
    case 'function_expression':
      return Math.max(1, sum);
    case 'subexpression':
    case 'index_expression':
    case 'pipe':
    case 'projection':
    case 'value_projection':
    case 'filter_projection':
    case 'flatten':
    case 'key_val_pair':
    case 'expref':
      return Math.max(1, product);
    default:
      // Comparisons, and/or/not and leaves: a choice between their parts, or one value.
      return Math.max(1, ...each);
  }
};

const shape = (node: Node): { nodes: number; depth: number } => {
  let nodes = 1;
  let depth = 0;
  for (const child of node.children) {
    if (typeof child !== 'object' || child === null) continue;
    const inner = shape(child as Node);
    nodes += inner.nodes;
    depth = Math.max(depth, inner.depth);
  }
  return { nodes, depth: depth + 1 };
};

/** The parsed expression, or throws the library's error for one that does not parse. */
export const parseExpression = (expression: string): Node => parser.parse(expression).parsed;

/** Why a parsed expression can never fit the bounds, or undefined. */
export const boundsProblem = (
  ast: Node,
  limits: ExpressionLimits = EXPRESSION_LIMITS,
): string | undefined => {
  const copies = amplification(ast);
  if (copies > limits.amplification) {
    return `can copy its input ${copies} times (multi-selects along pipes or projections); at most ${limits.amplification} is allowed`;
  }
  const { nodes, depth } = shape(ast);
  if (nodes > limits.nodes) return `has ${nodes} parts; at most ${limits.nodes} are allowed`;
  if (depth > limits.depth) return `nests ${depth} deep; at most ${limits.depth} is allowed`;
  return undefined;
};

/** Evaluates an expression on a value within the run's budget; throws ExpressionBudgetError past it. */
export const evaluateBounded = (expression: string, value: unknown, budget: RunBudget): unknown => {
  const ast = parseExpression(expression);
  const problem = boundsProblem(ast, budget.limits);
  if (problem) throw new ExpressionBudgetError(problem);
  try {
    return new BoundedInterpreter(budget).visit(ast, value as Visited);
  } catch (error) {
    if (error instanceof JMESPathTypeError) error.setExpression(expression);
    throw error;
  }
};
