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

/**
 * The model whose rolling-origin backtest on this history has the least absolute error, 1 and
 * 3 periods ahead together; naive unless another strictly beats it.
 */
export const chooseModel = (values: readonly number[], seasonLength: number): Choice => {
  const window = backtestWindow(values.length);
  const candidates = MODELS.map((model) => ({
    ...model,
    accuracy: rollingOrigin(values, seasonLength, window, forecastsOf(model.forecast, values, seasonLength)),
  }));
  const naive = candidates[0] as (typeof candidates)[number] & { accuracy: Accuracy };
  let best = naive;
  for (const candidate of candidates) {
    const { accuracy } = candidate;
    if (
      accuracy &&
      accuracy.mae1 + accuracy.mae3 < (best.accuracy as Accuracy).mae1 + (best.accuracy as Accuracy).mae3
    )
      best = candidate as typeof naive;
  }
  return {
    method: best.method,
    forecast: best.forecast,
    accuracy: best.accuracy,
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
