/**
 * The predictive distribution of one future period: normal on the model's scale, which is the
 * value itself or its logarithm (a model fitted on logs has multiplicative seasonality and trend,
 * and its band is skewed as such series are).
 */
export interface Predictive {
  /** The centre on the model's scale: the median of the value once transformed back. */
  mean: number;
  /** The standard deviation on the model's scale. */
  sd: number;
  log: boolean;
}

export type Direction = 'higher_is_better' | 'lower_is_better';

/** The normal quantile of 0.9: p10 and p90 lie this many standard deviations from the centre. */
export const Z90 = 1.2815515655446004;

/** The standard normal distribution function (W. J. Cody's erfc rational approximation via erf, |error| < 1.2e-7). */
export const normalCdf = (z: number): number => {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const erfc =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  // Stryker disable next-line EqualityOperator: at z = 0 both branches give 0.5 within the approximation's error
  return z >= 0 ? 1 - erfc / 2 : erfc / 2;
};

const back = (p: Predictive, x: number): number => (p.log ? Math.exp(x) : x);

/** The 10th, 50th and 90th percentiles of the value: ordered, since the transform is increasing. */
export const quantiles = (p: Predictive): { p10: number; p50: number; p90: number } => ({
  p10: back(p, p.mean - Z90 * p.sd),
  p50: back(p, p.mean),
  p90: back(p, p.mean + Z90 * p.sd),
});

/**
 * The chance that the period's value meets the target in the KPI's direction: at least the target
 * when higher is better, at most it when lower is better.
 */
export const probabilityOfMeeting = (p: Predictive, target: number, direction: Direction): number => {
  const higher = direction === 'higher_is_better';
  // Stryker disable next-line EqualityOperator: a target of 0 on a log scale is −∞, which the normal function meets with the same 1 or 0
  if (p.log && target <= 0) return higher ? 1 : 0;
  const x = p.log ? Math.log(target) : target;
  // A certain forecast meets the target exactly when its value does.
  if (p.sd === 0) return (higher ? p.mean >= x : p.mean <= x) ? 1 : 0;
  const atMost = normalCdf((x - p.mean) / p.sd);
  return higher ? 1 - atMost : atMost;
};
