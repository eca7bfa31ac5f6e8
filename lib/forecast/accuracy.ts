/**
 * Rolling-origin accuracy: each of the last `window` values is forecast from the history before it,
 * 1 and 3 periods ahead, and scored by MASE (the mean absolute error over the in-sample
 * seasonal-naive mean absolute error) and by how often the 80 % interval holds it.
 */

/** One forecast step: the point (the median) and the 80 % interval. */
export interface Interval {
  point: number;
  lower: number;
  upper: number;
}

/** Forecasts from the first `origin` values, 1 to `horizon` periods ahead; undefined if none. */
export type ForecastAt = (origin: number, horizon: number) => readonly Interval[] | undefined;

export const HORIZONS = [1, 3] as const;

export interface Accuracy {
  /** MASE 1 and 3 periods ahead; null when the scale is zero (a flat history) or nothing was forecast. */
  mase1: number | null;
  mase3: number | null;
  /** The share of the 80 % intervals, at both horizons, that held the value. */
  coverage80: number | null;
  /** The mean absolute errors, 1 and 3 periods ahead, on the series' own scale. */
  mae1: number;
  mae3: number;
  /** How many values were forecast at each horizon. */
  points: number;
  /**
   * The absolute errors, 1 and 3 periods ahead, in the order of the values forecast: every model
   * forecasts the same values, so two models' errors pair up one by one.
   */
  errors1: number[];
  errors3: number[];
}

/** The mean absolute difference between each value and the one `lag` periods before (lag 1 with too short a history). */
export const seasonalNaiveScale = (values: readonly number[], seasonLength: number): number => {
  // Stryker disable next-line EqualityOperator: a season length of 1 is a lag of 1 either way
  const lag = seasonLength > 1 && values.length > seasonLength ? seasonLength : 1;
  let sum = 0;
  for (let t = lag; t < values.length; t++)
    sum += Math.abs((values[t] as number) - (values[t - lag] as number));
  return values.length > lag ? sum / (values.length - lag) : 0;
};

/** Mean absolute error over a scale; null when there is nothing to scale by. */
export const mase = (
  actual: readonly number[],
  predicted: readonly number[],
  scale: number,
): number | null => {
  if (actual.length === 0 || scale === 0) return null;
  return meanAbsoluteError(actual, predicted) / scale;
};

const absoluteErrors = (actual: readonly number[], predicted: readonly number[]): number[] =>
  actual.map((a, i) => Math.abs(a - (predicted[i] as number)));

const meanAbsoluteError = (actual: readonly number[], predicted: readonly number[]): number =>
  actual.length === 0 ? 0 : absoluteErrors(actual, predicted).reduce((s, e) => s + e, 0) / actual.length;

/**
 * Scores `forecastAt` on the last `window` values. The scale is the seasonal-naive error of the values
 * before the window, so every origin and every model shares it. An origin a model cannot forecast
 * from counts as missing for that model: `undefined` is returned so a candidate is never scored on
 * fewer points than the others.
 */
export const rollingOrigin = (
  values: readonly number[],
  seasonLength: number,
  window: number,
  forecastAt: ForecastAt,
): Accuracy | undefined => {
  const n = values.length;
  const maxHorizon = HORIZONS[HORIZONS.length - 1] as number;
  const actual: number[][] = HORIZONS.map(() => []);
  const predicted: number[][] = HORIZONS.map(() => []);
  let inside = 0;
  let intervals = 0;
  // Stryker disable next-line ArithmeticOperator,EqualityOperator: an origin earlier than this or at n forecasts no value of the window, and is skipped below
  for (let origin = n - window - maxHorizon + 1; origin < n; origin++) {
    if (origin < 1) continue;
    const wanted = HORIZONS.filter((h) => origin + h - 1 >= n - window && origin + h - 1 < n);
    if (wanted.length === 0) continue;
    const forecast = forecastAt(origin, maxHorizon);
    if (forecast === undefined) return undefined;
    for (const h of wanted) {
      const k = HORIZONS.indexOf(h);
      const value = values[origin + h - 1] as number;
      const step = forecast[h - 1] as Interval;
      (actual[k] as number[]).push(value);
      (predicted[k] as number[]).push(step.point);
      intervals++;
      if (step.lower <= value && value <= step.upper) inside++;
    }
  }
  const scale = seasonalNaiveScale(values.slice(0, n - window), seasonLength);
  return {
    mase1: mase(actual[0] as number[], predicted[0] as number[], scale),
    mase3: mase(actual[1] as number[], predicted[1] as number[], scale),
    coverage80: intervals === 0 ? null : inside / intervals,
    mae1: meanAbsoluteError(actual[0] as number[], predicted[0] as number[]),
    mae3: meanAbsoluteError(actual[1] as number[], predicted[1] as number[]),
    points: (actual[0] as number[]).length,
    errors1: absoluteErrors(actual[0] as number[], predicted[0] as number[]),
    errors3: absoluteErrors(actual[1] as number[], predicted[1] as number[]),
  };
};
