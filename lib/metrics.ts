import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SERVICE_NAME } from './logger';

/**
 * Business metrics through Powertools Metrics: CloudWatch Embedded Metric Format documents on stdout,
 * which Lambda ships to CloudWatch Logs and CloudWatch turns into metrics, with no API call on the
 * request path. `POWERTOOLS_METRICS_DISABLED=true` turns emission off (the test suites).
 */
export const METRICS_NAMESPACE = 'StrategyService';

export const metrics = new Metrics({
  namespace: METRICS_NAMESPACE,
  serviceName: SERVICE_NAME,
  // The function is a dimension of every metric, so a dashboard can tell the push routes apart.
  ...(process.env.AWS_LAMBDA_FUNCTION_NAME
    ? { defaultDimensions: { function: process.env.AWS_LAMBDA_FUNCTION_NAME } }
    : {}),
});

export type MetricName =
  | 'MeasurementsPushed'
  | 'PushRejected'
  | 'LoginFailed'
  | 'RateLimited'
  | 'LoginCeilingReached';

/**
 * The outcome of a request, as dimensions: the caller's plan (4 values) and, for a refusal, the
 * problem slug (a closed catalog), so that every metric stays low-cardinality by construction.
 */
export interface MetricDimensions {
  plan: string;
  reason?: string;
}

/**
 * Counts `value` of `name` at once, as its own EMF document with its own dimensions (a Powertools
 * single metric): the dimensions differ from metric to metric within one request.
 */
export const countMetric = (name: MetricName, value: number, dimensions: MetricDimensions) => {
  const single = metrics.singleMetric();
  for (const [dimension, dimensionValue] of Object.entries(dimensions)) {
    if (dimensionValue !== undefined) single.addDimension(dimension, dimensionValue);
  }
  single.addMetric(name, MetricUnit.Count, value);
};

/**
 * Counts one event an alarm watches (serverless.yml `custom.alarms`): with the default dimensions only
 * (service and function), so that one alarm sees every occurrence in one metric.
 */
export const alertMetric = (name: MetricName) => {
  metrics.singleMetric().addMetric(name, MetricUnit.Count, 1);
};

/** The plan dimension before the caller's tenant is known (e.g. an unknown API key or e-mail). */
export const UNKNOWN_PLAN = 'unknown';
