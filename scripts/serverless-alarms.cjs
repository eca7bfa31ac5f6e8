// @ts-check
/**
 * Local Serverless plugin: CloudWatch alarms from serverless.yml `custom.alarms`, added to
 * the packaged template. The thresholds live in serverless.yml (and docs/operations.md); this file only builds
 * the resources, so a new function gets its alarms without a line here, and an authorizer needs one
 * line in `custom.alarms.authorizers`.
 *
 * - every function: Lambda `Errors` (authorizers: `authorizerErrors`, one alarm each) and `Throttles`,
 *   10 functions per alarm (the worst of them);
 * - `pushLatency.functions`: p99 `Duration`;
 * - the REST API: share of 5xx answers (`5XXError` / `Count`), once `minimumRequests` came in;
 * - the table and its index: read and write throttle events;
 * - `deadLetterQueues.queues`: SQS queues (resource ids) whose messages are work that failed for good: any
 *   visible message alarms;
 * - `serviceMetrics`: a metric the service itself emits (lib/metrics.ts `alertMetric`), per function,
 *   with the dimensions Powertools gives it in Lambda (`service` and `function`).
 * `topicArn` (stage parameter `alarmTopicArn`), when set, receives ALARM and OK notifications.
 * Missing data is "not breaching": no traffic is not an incident.
 */

/**
 * @typedef {{ threshold: number; periodSeconds: number; evaluationPeriods: number }} Rule
 * @typedef {{
 *   topicArn?: string;
 *   functionErrors: Rule;
 *   functionThrottles: Rule;
 *   authorizers?: string[];
 *   authorizerErrors: Rule;
 *   api5xxRate: Rule & { minimumRequests: number };
 *   dynamodbThrottles: Rule;
 *   pushLatency: { functions: string[]; p99Milliseconds: number; periodSeconds: number; evaluationPeriods: number };
 *   deadLetterQueues?: Rule & { queues: string[] };
 *   serviceMetrics?: (Rule & { function: string; metric: string; namespace: string; serviceName: string; description: string })[];
 * }} AlarmConfig
 */

/** CloudWatch's hard limit of metrics in one metric math alarm. */
const METRICS_PER_ALARM = 10;

class ServerlessAlarms {
  /** @param {any} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:aws:package:finalize:saveServiceState': () => this.addAlarms() };
  }

  addAlarms() {
    const { service, provider } = this.serverless.service;
    /** @type {AlarmConfig | undefined} */
    const config = this.serverless.service.custom?.alarms;
    if (!config) return;
    const naming = this.serverless.getProvider('aws').naming;
    const stage = provider.stage;
    const resources = provider.compiledCloudFormationTemplate.Resources;
    const functions = this.serverless.service.getAllFunctions();
    const fail = (/** @type {string} */ message) => {
      throw new this.serverless.classes.Error(`serverless-alarms: ${message}`);
    };
    const authorizers = config.authorizers ?? [];
    const serviceMetrics = config.serviceMetrics ?? [];
    for (const name of [
      ...authorizers,
      ...config.pushLatency.functions,
      ...serviceMetrics.map((m) => m.function),
    ]) {
      if (!functions.includes(name)) fail(`custom.alarms names "${name}", which is not a function`);
    }
    const actions = config.topicArn ? { AlarmActions: [config.topicArn], OKActions: [config.topicArn] } : {};
    /** @param {string} id @param {string} what @param {Record<string, unknown>} properties */
    const alarm = (id, what, properties) => {
      resources[id] = {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: {
          AlarmName: `${service}-${stage}-${what}`,
          TreatMissingData: 'notBreaching',
          ...actions,
          ...properties,
        },
      };
    };
    /** @param {Rule} rule */
    const window = (rule) => ({ Period: rule.periodSeconds, EvaluationPeriods: rule.evaluationPeriods });

    // Errors and throttles of every function, a group of at most 10 functions per alarm: an alarm on a
    // metric math expression reads at most 10 metrics (CloudWatch's hard limit), and one alarm per
    // function would cost the stack two resources per function (docs/architecture.md, "Room to grow").
    // The alarm's description names its functions; the graph of its expression shows which one it was.
    for (const name of functions) {
      if (!resources[naming.getLambdaLogicalId(name)]) fail(`no resource for function ${name}`);
    }
    const lambdaStat = (
      /** @type {string} */ id,
      /** @type {string} */ name,
      /** @type {string} */ metric,
      /** @type {Rule} */ rule,
    ) => ({
      Id: id,
      Label: name,
      ReturnData: false,
      MetricStat: {
        Metric: {
          Namespace: 'AWS/Lambda',
          MetricName: metric,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: naming.getLambdaLogicalId(name) } }],
        },
        Period: rule.periodSeconds,
        Stat: 'Sum',
      },
    });
    /** @param {string} id @param {string} what @param {string} metric @param {Rule} rule @param {string[]} names @param {string} label */
    const groupAlarm = (id, what, metric, rule, names, label) =>
      alarm(id, what, {
        AlarmDescription: `${rule.threshold}+ ${label} in ${rule.periodSeconds} s of one of: ${names.join(', ')}`,
        Metrics: [
          ...names.map((name, i) => lambdaStat(`f${i}`, name, metric, rule)),
          {
            Id: 'worst',
            Label: `${label} of the worst function`,
            ReturnData: true,
            Expression: `MAX([${names.map((_, i) => `FILL(f${i}, 0)`).join(', ')}])`,
          },
        ],
        Threshold: rule.threshold,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: rule.evaluationPeriods,
      });
    const others = functions.filter((name) => !authorizers.includes(name));
    for (let start = 0, group = 1; start < others.length; start += METRICS_PER_ALARM, group++) {
      const names = others.slice(start, start + METRICS_PER_ALARM);
      groupAlarm(
        `FunctionErrorsAlarm${group}`,
        `function-errors-${group}`,
        'Errors',
        config.functionErrors,
        names,
        'errors',
      );
    }
    for (let start = 0, group = 1; start < functions.length; start += METRICS_PER_ALARM, group++) {
      const names = functions.slice(start, start + METRICS_PER_ALARM);
      groupAlarm(
        `FunctionThrottlesAlarm${group}`,
        `function-throttles-${group}`,
        'Throttles',
        config.functionThrottles,
        names,
        'throttled invocations',
      );
    }
    // An authorizer's error refuses every request it guards: an alarm of its own, at a shorter period.
    for (const name of authorizers) {
      const logicalId = naming.getLambdaLogicalId(name);
      const rule = config.authorizerErrors;
      alarm(`${logicalId}ErrorsAlarm`, `${name}-authorizer-errors`, {
        AlarmDescription: `${name}: ${rule.threshold}+ authorizer errors in ${rule.periodSeconds} s`,
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId } }],
        Statistic: 'Sum',
        Threshold: rule.threshold,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        ...window(rule),
      });
    }
    for (const name of config.pushLatency.functions) {
      const logicalId = naming.getLambdaLogicalId(name);
      const rule = config.pushLatency;
      alarm(`${logicalId}P99DurationAlarm`, `${name}-p99-duration`, {
        AlarmDescription: `${name}: p99 duration above ${rule.p99Milliseconds} ms`,
        Namespace: 'AWS/Lambda',
        MetricName: 'Duration',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId } }],
        ExtendedStatistic: 'p99',
        Threshold: rule.p99Milliseconds,
        ComparisonOperator: 'GreaterThanThreshold',
        Period: rule.periodSeconds,
        EvaluationPeriods: rule.evaluationPeriods,
      });
    }

    for (const rule of serviceMetrics) {
      const logicalId = naming.getLambdaLogicalId(rule.function);
      alarm(`${logicalId}${rule.metric}Alarm`, `${rule.function}-${rule.metric}`, {
        AlarmDescription: rule.description,
        Namespace: rule.namespace,
        MetricName: rule.metric,
        Dimensions: [
          { Name: 'service', Value: rule.serviceName },
          { Name: 'function', Value: { Ref: logicalId } },
        ],
        Statistic: 'Sum',
        Threshold: rule.threshold,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        ...window(rule),
      });
    }

    const dlq = config.deadLetterQueues;
    for (const queue of dlq?.queues ?? []) {
      if (resources[queue]?.Type !== 'AWS::SQS::Queue')
        fail(`custom.alarms names "${queue}", which is not an SQS queue`);
      alarm(`${queue}MessagesAlarm`, `${queue}-messages`, {
        AlarmDescription: `${dlq?.threshold}+ messages in ${queue}: work that failed for good (docs/operations.md)`,
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queue, 'QueueName'] } }],
        Statistic: 'Maximum',
        Threshold: dlq?.threshold,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Period: dlq?.periodSeconds,
        EvaluationPeriods: dlq?.evaluationPeriods,
      });
    }

    const api = config.api5xxRate;
    const apiDimensions = [
      { Name: 'ApiName', Value: provider.apiName ?? `${stage}-${service}` },
      { Name: 'Stage', Value: stage },
    ];
    const apiMetric = (/** @type {string} */ id, /** @type {string} */ metric) => ({
      Id: id,
      ReturnData: false,
      MetricStat: {
        Metric: { Namespace: 'AWS/ApiGateway', MetricName: metric, Dimensions: apiDimensions },
        Period: api.periodSeconds,
        Stat: 'Sum',
      },
    });
    alarm('Api5xxRateAlarm', 'api-5xx-rate', {
      AlarmDescription: `More than ${api.threshold * 100} % of API requests answered 5xx (at least ${api.minimumRequests} requests)`,
      Metrics: [
        apiMetric('errors', '5XXError'),
        apiMetric('requests', 'Count'),
        {
          Id: 'rate',
          Label: '5xx share of requests',
          ReturnData: true,
          Expression: `IF(requests >= ${api.minimumRequests}, errors / requests, 0)`,
        },
      ],
      Threshold: api.threshold,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: api.evaluationPeriods,
    });

    const ddb = config.dynamodbThrottles;
    const tableName = resources.Table?.Properties?.TableName;
    if (!tableName) fail('no Table resource with a TableName');
    const indexes = (resources.Table.Properties.GlobalSecondaryIndexes ?? []).map(
      (/** @type {{ IndexName: string }} */ index) => index.IndexName,
    );
    /** @type {Record<string, unknown>[]} */
    const throttleMetrics = [];
    for (const [i, index] of [undefined, ...indexes].entries()) {
      for (const metric of ['ReadThrottleEvents', 'WriteThrottleEvents']) {
        throttleMetrics.push({
          Id: `m${throttleMetrics.length}`,
          ReturnData: false,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/DynamoDB',
              MetricName: metric,
              Dimensions: [
                { Name: 'TableName', Value: tableName },
                ...(i === 0 ? [] : [{ Name: 'GlobalSecondaryIndexName', Value: index }]),
              ],
            },
            Period: ddb.periodSeconds,
            Stat: 'Sum',
          },
        });
      }
    }
    alarm('DynamoDbThrottlesAlarm', 'dynamodb-throttles', {
      AlarmDescription: `${ddb.threshold}+ throttled reads or writes on the table or its indexes in ${ddb.periodSeconds} s`,
      Metrics: [
        ...throttleMetrics,
        {
          Id: 'throttled',
          Label: 'Throttle events',
          ReturnData: true,
          Expression: throttleMetrics.map((m) => `FILL(${m.Id}, 0)`).join(' + '),
        },
      ],
      Threshold: ddb.threshold,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: ddb.evaluationPeriods,
    });
  }
}

module.exports = ServerlessAlarms;
