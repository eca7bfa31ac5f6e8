import { type Accuracy, type Interval, rollingOrigin } from './accuracy';
import { type Direction, type Predictive, probabilityOfMeeting, quantiles } from './distribution';
import { type Fit, type Method, MODELS } from './models';

/** Fewer periods than this give no projection: a band from so little would be a guess. */
export const MIN_HISTORY = 6;
/** The backtest forecasts at most this many of the last periods. */
export const BACKTEST_WINDOW = 12;

export interface Target {
  value: number;
  direction: Direction;
}

export interface ProjectionInput {
  /** One value per period, equally spaced, oldest first, no gaps. */
  values: readonly number[];
  /** The last period's start, as the caller names periods: reported in `basedOn`. */
  lastPeriod: string;
  /** Periods per seasonal cycle: 12 monthly, 4 quarterly, 7 daily; 1 for none. */
  seasonLength: number;
  /** How many periods ahead to project. */
  periods: number;
  /** The targets of future periods, by step (1 is the next period). */
  targets?: ReadonlyMap<number, Target>;
}

export interface ProjectedPeriod {
  /** 1 for the period after the last one. */
  step: number;
  p10: number;
  p50: number;
  p90: number;
  target?: number;
  /** The chance that the value meets the target in its direction. */
  probability?: number;
}

export interface Backtest {
  mase1: number | null;
  mase3: number | null;
  coverage80: number | null;
  /** How many of the last periods were forecast. */
  periods: number;
}

export type Projection =
  | {
      method: Method;
      basedOn: { count: number; lastPeriod: string };
      backtest: Backtest;
      periods: ProjectedPeriod[];
    }
  | { method: null; basedOn: { count: number; lastPeriod: string }; periods: []; reason: string };

const toInterval = ({ p10, p50, p90 }: { p10: number; p50: number; p90: number }): Interval => ({
  point: p50,
  lower: p10,
  upper: p90,
});

/** The forecasts of one model from the first `origin` values, as intervals. */
export const forecastsOf =
  (model: Fit, values: readonly number[], seasonLength: number) =>
  (origin: number, horizon: number): Interval[] | undefined =>
    model(values.slice(0, origin), seasonLength, horizon)?.map((p) => toInterval(quantiles(p)));

/** How many of the last periods a history of n can be backtested on, leaving the models enough to fit. */
export const backtestWindow = (n: number): number =>
  Math.max(1, Math.min(BACKTEST_WINDOW, n - MIN_HISTORY + 1));

export interface Choice {
  method: Method;
  forecast: Fit;
  accuracy: Accuracy;
  /** Every candidate's backtest on this history, in the candidates' order. */
  candidates: { method: Method; accuracy: Accuracy | undefined }[];
}

/** The one-sided 5 % critical value of the standard normal distribution. */
export const CRITICAL_5 = 1.6448536269514722;

/**
 * Whether a candidate's backtest is clearly better than the baseline's: a paired Diebold–Mariano-style
 * test, one-sided at 5 %. Each value of the window gives one loss difference, the baseline's absolute
 * errors 1 and 3 periods ahead minus the candidate's; the candidate is clearly better when the mean
 * difference exceeds 1.645 standard errors. A gain that the spread of the differences could give by
 * chance is not enough, so on a short or noisy history the simpler model stays.
 */
export const clearlyBetter = (candidate: Accuracy, baseline: Accuracy): boolean => {
  const gains = baseline.errors1.map(
    (e, i) =>
      e +
      (baseline.errors3[i] as number) -
      (candidate.errors1[i] as number) -
      (candidate.errors3[i] as number),
  );
  const n = gains.length;
  const mean = gains.reduce((s, g) => s + g, 0) / n;
  // With one value the spread is unknown (0 / 0) and with none the mean is: no comparison holds then.
  const variance = gains.reduce((s, g) => s + (g - mean) ** 2, 0) / (n - 1);
  return mean > CRITICAL_5 * Math.sqrt(variance / n);
};

/**
 * The model this history's own rolling-origin backtest chooses: the candidate with the least absolute
 * error, 1 and 3 periods ahead together (the simplest on a tie), when it is clearly better than
 * naive; naive otherwise.
 */
export const chooseModel = (values: readonly number[], seasonLength: number): Choice => {
  const window = backtestWindow(values.length);
  const candidates = MODELS.map((model) => ({
    ...model,
    accuracy: rollingOrigin(values, seasonLength, window, forecastsOf(model.forecast, values, seasonLength)),
  }));
  type Scored = (typeof candidates)[number] & { accuracy: Accuracy };
  const error = ({ accuracy }: Scored) => accuracy.mae1 + accuracy.mae3;
  const naive = candidates[0] as Scored;
  let best = naive;
  for (const candidate of candidates)
    if (candidate.accuracy && error(candidate as Scored) < error(best)) best = candidate as Scored;
  const chosen = clearlyBetter(best.accuracy, naive.accuracy) ? best : naive;
  return {
    method: chosen.method,
    forecast: chosen.forecast,
    accuracy: chosen.accuracy,
    candidates: candidates.map(({ method, accuracy }) => ({ method, accuracy })),
  };
};

/** The next periods' p10, p50 and p90 from the model this history's own backtest chooses. */
export const project = (input: ProjectionInput): Projection => {
  const { values, lastPeriod, seasonLength, periods, targets } = input;
  const basedOn = { count: values.length, lastPeriod };
  if (values.length < MIN_HISTORY)
    return {
      method: null,
      basedOn,
      periods: [],
      reason: `A projection needs at least ${MIN_HISTORY} periods of history; this KPI has ${values.length}.`,
    };
  const choice = chooseModel(values, seasonLength);
  const forecast = choice.forecast(values, seasonLength, periods) as Predictive[];
  return {
    method: choice.method,
    basedOn,
    backtest: {
      mase1: choice.accuracy.mase1,
      mase3: choice.accuracy.mase3,
      coverage80: choice.accuracy.coverage80,
      periods: choice.accuracy.points,
    },
    periods: forecast.map((predictive, i) => {
      const step = i + 1;
      const target = targets?.get(step);
      return {
        step,
        ...quantiles(predictive),
        ...(target && {
          target: target.value,
          probability: probabilityOfMeeting(predictive, target.value, target.direction),
        }),
      };
    }),
  };
};
