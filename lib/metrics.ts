import { SERVICE_NAME } from './logger';

/**
 * Issue 14: business metrics as CloudWatch Embedded Metric Format (EMF) documents on stdout, which
 * Lambda ships to CloudWatch Logs and CloudWatch turns into metrics: no API call, no latency.
 *
 * Written here rather than with Powertools Metrics: that package adds 12.1 KB minified to a bundle
 * (measured; README "Operations"), which would take the login function past the benchmark's 100 KB
 * budget. The documents follow the same EMF specification Powertools emits, so switching is a change
 * of this file only.
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
 */
export const METRICS_NAMESPACE = 'StrategyService';

export type MetricName = 'MeasurementsPushed' | 'PushRejected' | 'LoginFailed' | 'RateLimited';

/** Dimensions are low-cardinality by construction: plan (4 values) and a problem slug (closed catalog). */
export interface MetricDimensions {
  plan: string;
  reason?: string;
}

/** `POWERTOOLS_METRICS_DISABLED=true` (the variable Powertools Metrics honours) turns emission off. */
const disabled = () => process.env.POWERTOOLS_METRICS_DISABLED?.toLowerCase() === 'true';

export const emitMetric = (name: MetricName, value: number, dimensions: MetricDimensions) => {
  if (disabled()) return;
  const values: Record<string, string> = { service: SERVICE_NAME, ...dimensions };
  const document = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [Object.keys(values)],
          Metrics: [{ Name: name, Unit: 'Count' }],
        },
      ],
    },
    ...values,
    [name]: value,
  };
  process.stdout.write(`${JSON.stringify(document)}\n`);
};

/** The plan dimension before the caller's tenant is known (e.g. an unknown API key or e-mail). */
export const UNKNOWN_PLAN = 'unknown';
