import type { Predictive } from './distribution';

/**
 * The candidate models. Each fits a history (equally spaced, oldest first) and forecasts the next
 * periods as predictive distributions; `undefined` when the history is too short for the model.
 * All are deterministic: fitting is a fixed search from a fixed start.
 */
export type Method = 'naive' | 'drift' | 'seasonal_naive' | 'ets' | 'ets_log';

export type Fit = (
  values: readonly number[],
  seasonLength: number,
  horizon: number,
) => Predictive[] | undefined;

const rms = (errors: readonly number[]): number =>
  errors.length === 0 ? 0 : Math.sqrt(errors.reduce((sum, e) => sum + e * e, 0) / errors.length);

const steps = (horizon: number) => Array.from({ length: horizon }, (_, i) => i + 1);

/** The last value, with a random walk's spread: σ√h. */
const naive: Fit = (y, _m, horizon) => {
  if (y.length < 2) return undefined;
  const sigma = rms(y.slice(1).map((v, i) => v - (y[i] as number)));
  const last = y[y.length - 1] as number;
  return steps(horizon).map((h) => ({ mean: last, sd: sigma * Math.sqrt(h), log: false }));
};

/** The line from the first value to the last, extended; its spread includes the slope's error. */
const drift: Fit = (y, _m, horizon) => {
  const n = y.length;
  if (n < 3) return undefined;
  const slope = ((y[n - 1] as number) - (y[0] as number)) / (n - 1);
  const sigma = rms(y.slice(1).map((v, i) => v - (y[i] as number) - slope));
  const last = y[n - 1] as number;
  return steps(horizon).map((h) => ({
    mean: last + h * slope,
    sd: sigma * Math.sqrt(h * (1 + h / (n - 1))),
    log: false,
  }));
};

/** The value of the same season one cycle before; without seasons, the last value (naive). */
const seasonalNaive: Fit = (y, seasonLength, horizon) => {
  const n = y.length;
  const m = Math.max(1, seasonLength);
  if (n < m + 2) return undefined;
  const sigma = rms(y.slice(m).map((v, i) => v - (y[i] as number)));
  return steps(horizon).map((h) => ({
    mean: y[n - m + ((h - 1) % m)] as number,
    sd: sigma * Math.sqrt(Math.floor((h - 1) / m) + 1),
    log: false,
  }));
};

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

interface EtsParameters {
  alpha: number;
  beta: number;
  gamma: number;
  phi: number;
}

/** Unbounded search coordinates to admissible parameters: 0 < β < α < 1, 0 < γ < 1 − α, 0.8 ≤ φ ≤ 0.98. */
const parameters = ([a, b, c, d]: readonly number[]): EtsParameters => {
  const alpha = 0.0001 + 0.9998 * sigmoid(a as number);
  return {
    alpha,
    beta: alpha * sigmoid(b as number),
    gamma: (1 - alpha) * sigmoid(c as number),
    phi: 0.8 + 0.18 * sigmoid(d as number),
  };
};

interface EtsState {
  level: number;
  trend: number;
  /** The last m seasonal states, oldest first: `season[0]` is the next period's. */
  season: number[];
  sse: number;
  count: number;
}

/**
 * Additive Holt–Winters with a damped trend, in its error-correction form (ETS(A,Ad,A), or
 * ETS(A,Ad,N) with m = 1), run over the history from the classical initial states.
 */
const runEts = (y: readonly number[], m: number, p: EtsParameters): EtsState => {
  const seasonal = m > 1;
  const first = y.slice(0, Math.max(m, 2));
  const firstMean = first.reduce((s, v) => s + v, 0) / first.length;
  let level = firstMean;
  let trend: number;
  let season: number[];
  if (seasonal) {
    const second = y.slice(m, 2 * m);
    const secondMean = second.reduce((s, v) => s + v, 0) / second.length;
    trend = (secondMean - firstMean) / m;
    season = first.map((v) => v - firstMean);
    level = firstMean - trend * ((m - 1) / 2);
    // The states stand before the first period: level and trend one step back.
    level -= trend;
  } else {
    trend = (y[1] as number) - (y[0] as number);
    level = (y[0] as number) - trend;
    season = [0];
  }
  let sse = 0;
  for (const value of y) {
    const s = seasonal ? (season[0] as number) : 0;
    const error = value - (level + p.phi * trend + s);
    sse += error * error;
    const nextLevel = level + p.phi * trend + p.alpha * error;
    trend = p.phi * trend + p.beta * error;
    level = nextLevel;
    if (seasonal) {
      season.shift();
      season.push(s + p.gamma * error);
    }
  }
  return { level, trend, season, sse, count: y.length };
};

/** Nelder–Mead from a fixed start with a fixed budget: the same history gives the same minimum. */
const minimise = (f: (x: number[]) => number, start: number[], iterations: number): number[] => {
  const dims = start.length;
  let simplex = [start, ...start.map((_, i) => start.map((v, j) => (i === j ? v + 1 : v)))].map((x) => ({
    x,
    fx: f(x),
  }));
  for (let k = 0; k < iterations; k++) {
    simplex.sort((p, q) => p.fx - q.fx);
    const best = simplex[0] as { x: number[]; fx: number };
    const worst = simplex[dims] as { x: number[]; fx: number };
    const secondWorst = simplex[dims - 1] as { x: number[]; fx: number };
    if (Math.abs(worst.fx - best.fx) <= 1e-10 * (Math.abs(best.fx) + 1e-12)) break;
    const centroid = start.map(
      (_, j) => simplex.slice(0, dims).reduce((s, p) => s + (p.x[j] as number), 0) / dims,
    );
    const along = (t: number) => centroid.map((c, j) => c + t * (c - (worst.x[j] as number)));
    const reflected = along(1);
    const fr = f(reflected);
    if (fr < best.fx) {
      const expanded = along(2);
      const fe = f(expanded);
      simplex[dims] = fe < fr ? { x: expanded, fx: fe } : { x: reflected, fx: fr };
    } else if (fr < secondWorst.fx) {
      simplex[dims] = { x: reflected, fx: fr };
    } else {
      const contracted = along(fr < worst.fx ? 0.5 : -0.5);
      const fc = f(contracted);
      if (fc < Math.min(fr, worst.fx)) simplex[dims] = { x: contracted, fx: fc };
      else
        simplex = simplex.map((p, i) =>
          i === 0
            ? p
            : ((x) => ({ x, fx: f(x) }))(
                p.x.map((v, j) => (best.x[j] as number) + 0.5 * (v - (best.x[j] as number))),
              ),
        );
    }
  }
  simplex.sort((p, q) => p.fx - q.fx);
  return (simplex[0] as { x: number[] }).x;
};

/** Start: α ≈ 0.5, β ≈ 0.05·α… chosen as the usual middle of each range. */
const START = [0, -2, -2, 1];

const ets =
  (log: boolean): Fit =>
  (values, m, horizon) => {
    if (log && values.some((v) => !(v > 0))) return undefined;
    const y = log ? values.map(Math.log) : values;
    const seasonLength = m > 1 && y.length >= 2 * m + 2 ? m : 1;
    if (y.length < Math.max(4, seasonLength + 2)) return undefined;
    const x = minimise((q) => runEts(y, seasonLength, parameters(q)).sse, START, 200 * START.length);
    const p = parameters(x);
    const state = runEts(y, seasonLength, p);
    const sigma = Math.sqrt(state.sse / state.count);
    let damped = 0;
    let variance = 0;
    return steps(horizon).map((h) => {
      // Var(h) = σ²(1 + Σ_{j<h} c_j²), c_j = α + βφ_j + γ·[j a multiple of m] (Hyndman et al., class 1).
      if (h > 1) {
        const j = h - 1;
        damped += p.phi ** j;
        const c = p.alpha + p.beta * damped + (seasonLength > 1 && j % seasonLength === 0 ? p.gamma : 0);
        variance += c * c;
      }
      let phiSum = 0;
      for (let i = 1; i <= h; i++) phiSum += p.phi ** i;
      const s = seasonLength > 1 ? (state.season[(h - 1) % seasonLength] as number) : 0;
      return { mean: state.level + phiSum * state.trend + s, sd: sigma * Math.sqrt(1 + variance), log };
    });
  };

/** The candidates, in the order a tie is settled: the simplest first, naive the fallback. */
export const MODELS: readonly { method: Method; forecast: Fit }[] = [
  { method: 'naive', forecast: naive },
  { method: 'drift', forecast: drift },
  { method: 'seasonal_naive', forecast: seasonalNaive },
  { method: 'ets', forecast: ets(false) },
  { method: 'ets_log', forecast: ets(true) },
];
