import { execFileSync, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Call, recordCalls } from '../../../bench/capacity';
import { handler as acceptInvitationHandler } from '../../../functions/accept-invitation';
import { handler as changePasswordHandler } from '../../../functions/change-password';
import { handler as checkAlertsHandler } from '../../../functions/check-alerts';
import { handler as checkKeyHandler } from '../../../functions/check-push-key';
import { handler as createKeyHandler } from '../../../functions/create-api-key';
import { handler as createKpiHandler } from '../../../functions/create-kpi';
import { handler as createPullHandler } from '../../../functions/create-pull-integration';
import { handler as createCycleHandler } from '../../../functions/create-strategic-cycle';
import { handler as createWebhookHandler } from '../../../functions/create-webhook';
import { handler as deleteKpiHandler } from '../../../functions/delete-kpi';
import { handler as deletePullHandler } from '../../../functions/delete-pull-integration';
import { handler as deleteCycleHandler } from '../../../functions/delete-strategic-cycle';
import { handler as deleteWebhookHandler } from '../../../functions/delete-webhook';
import { handler as deliverWebhooksHandler } from '../../../functions/deliver-webhooks';
import { handler as getKeyUsageHandler } from '../../../functions/get-api-key-usage';
import { handler as getKpiHandler } from '../../../functions/get-kpi';
import { handler as getProjectionHandler } from '../../../functions/get-kpi-projection';
import { handler as getPullHandler } from '../../../functions/get-pull-integration';
import { handler as getCycleHandler } from '../../../functions/get-strategic-cycle';
import { handler as githubSecretScanningHandler } from '../../../functions/github-secret-scanning';
import { handler as healthHandler } from '../../../functions/health';
import { handler as inviteUserHandler } from '../../../functions/invite-user';
import { handler as listKeysHandler } from '../../../functions/list-api-keys';
import { handler as listAuditEventsHandler } from '../../../functions/list-audit-events';
import { handler as listKpiOwnersHandler } from '../../../functions/list-kpi-owners';
import { handler as listKpisHandler } from '../../../functions/list-kpis';
import { handler as listMeasurementsHandler } from '../../../functions/list-measurements';
import { handler as listPullRunsHandler } from '../../../functions/list-pull-integration-runs';
import { handler as listPullHandler } from '../../../functions/list-pull-integrations';
import { handler as listCyclesHandler } from '../../../functions/list-strategic-cycles';
import { handler as listUsersHandler } from '../../../functions/list-users';
import { handler as listDeliveriesHandler } from '../../../functions/list-webhook-deliveries';
import { handler as listWebhooksHandler } from '../../../functions/list-webhooks';
import { handler as loginHandler } from '../../../functions/login';
import { handler as logoutHandler } from '../../../functions/logout';
import { handler as previewPullDefinitionHandler } from '../../../functions/preview-pull-definition';
import { handler as previewPullHandler } from '../../../functions/preview-pull-integration';
import { handler as pushAuthorizerHandler } from '../../../functions/push-authorizer';
import { handler as pushHandler } from '../../../functions/push-measurement';
import { handler as pushBatchHandler } from '../../../functions/push-measurements-batch';
import { handler as refreshHandler } from '../../../functions/refresh-token';
import { handler as resetPasswordHandler } from '../../../functions/reset-user-password';
import { handler as revokeKeyHandler } from '../../../functions/revoke-api-key';
import { handler as rollKeyHandler } from '../../../functions/roll-api-key';
import { handler as runPullHandler } from '../../../functions/run-pull-integration';
import { handler as runPullsHandler } from '../../../functions/run-pull-integrations';
import { handler as schedulePullsHandler } from '../../../functions/schedule-pull-integrations';
import { handler as setTargetsHandler } from '../../../functions/set-kpi-targets';
import { handler as testWebhookHandler } from '../../../functions/test-webhook';
import { handler as updateKeyHandler } from '../../../functions/update-api-key';
import { handler as updateKpiHandler } from '../../../functions/update-kpi';
import { handler as updatePullHandler } from '../../../functions/update-pull-integration';
import { handler as updateCycleHandler } from '../../../functions/update-strategic-cycle';
import { handler as updateUserHandler } from '../../../functions/update-user';
import { generateApiKey } from '../../../lib/api-keys/key-format';
import { createApiKey, rollApiKey } from '../../../lib/api-keys/service';
import { keys } from '../../../lib/db/keys';
import { errorCatalog, problemType } from '../../../lib/errors';
import { JSON_SECURITY_HEADERS, STRICT_TRANSPORT_SECURITY } from '../../../lib/http/responses';
import { updateKpi } from '../../../lib/kpis/settings';
import { createIntegration } from '../../../lib/pull/definitions';
import { pullLocalQueue } from '../../../lib/pull/local-queue';
import { pullDeps, webhookDeps } from '../../../lib/runtime';
import { webhookLocalQueue } from '../../../lib/webhooks/local-queue';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../../lib/webhooks/schedule';
import { ATTEMPT_TIMEOUT_MS } from '../../../lib/webhooks/send';
import { createEndpoint } from '../../../lib/webhooks/service';
import { freePort } from '../../../scripts/local/processes';
import { iamLike } from '../../support/api-gateway';
import { invoke } from '../../support/events';
import {
  bearer,
  createRawKey,
  createTestCycles,
  createTestTenant,
  db,
  publish,
  putMeasurement,
  type TestTenant,
} from '../../support/fixtures';
import { signedHeaders } from '../../support/github-keys';
import { type PullSource, startPullSource } from '../../support/pull-source';
import { measurementFor } from '../../support/push';
import {
  type CloudFormationResource,
  type CloudFormationTemplate,
  packageTemplate,
  removePackages,
  resourcesOfType,
} from '../../support/serverless-template';

/**
 * What `serverless package` puts into the template for operating the service: tracing, the
 * access log, alarms, one least-privilege role per function, the JWT key as an SSM SecureString read at
 * run time, CORS, the AWS WAF web ACL, deletion protection and the stack outputs. Runs `cfn-lint` on the template when it is
 * installed (it is a Python tool, not on every machine; docs/development.md).
 */
const root = resolve(__dirname, '..', '..', '..');
let prod: CloudFormationTemplate;
let withOrigins: CloudFormationTemplate;
const ORIGINS = ['https://app.example.com', 'https://admin.example.com'];

/** Each function's bundle, unminified (the names of what it calls are readable), by function name. */
const bundles: Record<string, string> = {};

beforeAll(async () => {
  const plugins = (await import(join(root, 'scripts/esbuild-plugins.cjs'))).default;
  const handlers = Object.fromEntries(
    [
      ...JWT_FUNCTIONS,
      ...PUSH_FUNCTIONS,
      ...PAGE_FUNCTIONS,
      ...PUBLIC_FUNCTIONS,
      ...QUEUE_FUNCTIONS,
      ...SCHEDULED_FUNCTIONS,
    ].map((name) => [name, '']),
  );
  // One after the other: two concurrent packages of one checkout disturb each other.
  prod = await packageTemplate('prod');
  withOrigins = await packageTemplate('staging', {
    corsOrigins: ORIGINS.join(','),
    alarmTopicArn: 'arn:aws:sns:eu-central-1:123456789012:ops',
    manageApiGatewayAccount: 'false',
    wafEnabled: 'false',
  });
  for (const [name, { fn }] of Object.entries(functionsOf(prod))) {
    if (!(name in handlers)) continue;
    const { outputFiles } = await build({
      entryPoints: [join(root, `${fn.Properties.Handler.replace(/\.handler$/, '')}.ts`)],
      bundle: true,
      write: false,
      platform: 'node',
      format: 'cjs',
      external: ['@aws-sdk/*'],
      logLevel: 'silent',
      plugins,
    });
    bundles[name] = outputFiles[0]!.text;
  }
  // Two `serverless package` runs and a bundle per function: minutes on a loaded 2-core machine.
}, 600_000);
afterAll(removePackages);

const JWT_FUNCTIONS = [
  'listAuditEvents',
  'login',
  'refreshToken',
  'logout',
  'listStrategicCycles',
  'listKpis',
  'getKpi',
  'updateKpi',
  'listMeasurements',
  'createApiKey',
  'listApiKeys',
  'getApiKeyUsage',
  'revokeApiKey',
  'rollApiKey',
  'updateApiKey',
  'createWebhook',
  'listWebhooks',
  'deleteWebhook',
  'listWebhookDeliveries',
  'testWebhook',
  'createPullIntegration',
  'listPullIntegrations',
  'getPullIntegration',
  'updatePullIntegration',
  'deletePullIntegration',
  'previewPullIntegration',
  'previewPullDefinition',
  'runPullIntegration',
  'listPullIntegrationRuns',
  'createKpi',
  'deleteKpi',
  'getKpiProjection',
  'createStrategicCycle',
  'getStrategicCycle',
  'updateStrategicCycle',
  'deleteStrategicCycle',
  'listUsers',
  'listKpiOwners',
  'inviteUser',
  'updateUser',
  'resetUserPassword',
  'acceptInvitation',
  'changePassword',
  'setKpiTargets',
];
const PUSH_FUNCTIONS = ['pushMeasurement', 'pushMeasurementsBatch', 'pushAuthorizer', 'checkPushKey'];
const PUSH_HANDLERS = ['pushMeasurement', 'pushMeasurementsBatch'];
const PAGE_FUNCTIONS = [
  'apiKeysPage',
  'kpisPage',
  'strategyPage',
  'integrationsPage',
  'auditPage',
  'peoplePage',
  'notFoundPage',
  'acceptPage',
];
/**
 * Without a caller of the service's own, and without the JWT key: health, the document, the reference
 * page, and GitHub's secret-scanning reports (signed by GitHub).
 */
const PUBLIC_FUNCTIONS = ['health', 'openApiDocument', 'apiDocs', 'githubSecretScanning'];
/**
 * Run by an SQS queue: the webhook delivery worker (it opens webhook secrets with the secrets key, old
 * ones with the JWT key) and the pull worker (it opens pull credentials with the secrets key).
 */
const QUEUE_FUNCTIONS = ['deliverWebhooks', 'runPullIntegrations'];
/** Run by an EventBridge schedule: the alert check and the pull scheduler (no secret, no tenant URL). */
const SCHEDULED_FUNCTIONS = ['checkAlerts', 'schedulePullIntegrations'];

const functionsOf = (template: CloudFormationTemplate) =>
  Object.fromEntries(
    resourcesOfType(template, 'AWS::Lambda::Function').map(([id, fn]) => [
      id.replace(/LambdaFunction$/, '').replace(/^./, (c) => c.toLowerCase()),
      { id, fn },
    ]),
  );

const roleOf = (template: CloudFormationTemplate, fn: CloudFormationResource) => {
  const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
  return { roleId, role: template.Resources[roleId]! };
};

const statementsOf = (role: CloudFormationResource): any[] =>
  role.Properties.Policies.flatMap((policy: any) => policy.PolicyDocument.Statement);

const actionsOf = (statements: any[], prefix: string) =>
  [
    ...new Set(
      statements
        .flatMap((s) => [s.Action].flat() as string[])
        .filter((a) => a.startsWith(prefix))
        .map((a) => a.slice(prefix.length)),
    ),
  ].sort();

/** The partition-key patterns a statement's condition allows; undefined without a condition. */
const leadingKeysOf = (statement: any): string[] | undefined =>
  statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];

const TABLE_ARN = { 'Fn::GetAtt': ['Table', 'Arn'] };
const indexArn = (name: string) => ({
  'Fn::Join': ['/', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, 'index', name]],
});
const INDEX_ARN = indexArn('gsi1');
/** The sparse index of the alert check: KPIs with a cadence, keys by expiry day. */
const ALERT_INDEX_ARN = indexArn('gsi2');
const parameterArn = (stage: string, name = 'jwt-secret') => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':ssm:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:parameter/strategy-service/${stage}/${name}`,
    ],
  ],
});

describe('tracing and the access log', () => {
  it('traces every function actively and lets its role send segments', () => {
    for (const [name, { fn }] of Object.entries(functionsOf(prod))) {
      expect(fn.Properties.TracingConfig, name).toEqual({ Mode: 'Active' });
      const xray = actionsOf(statementsOf(roleOf(prod, fn).role), 'xray:');
      expect(xray, name).toEqual(['PutTelemetryRecords', 'PutTraceSegments']);
    }
  });

  it('traces the stage and writes a JSON access line per request with the request id, never an API key', () => {
    const [[, stage]] = resourcesOfType(prod, 'AWS::ApiGateway::Stage') as [[string, CloudFormationResource]];
    expect(stage.Properties.TracingEnabled).toBe(true);
    const { DestinationArn, Format } = stage.Properties.AccessLogSetting;
    expect(DestinationArn).toEqual({ 'Fn::GetAtt': ['ApiGatewayAccessLogGroup', 'Arn'] });
    const fields = JSON.parse(Format);
    expect(fields).toMatchObject({
      requestId: '$context.requestId',
      httpMethod: '$context.httpMethod',
      resourcePath: '$context.resourcePath',
      status: '$context.status',
      responseLatency: '$context.responseLatency',
    });
    expect(Format).not.toContain('$context.identity.apiKey"');
    expect(prod.Resources.ApiGatewayAccessLogGroup!.Properties.RetentionInDays).toBe(30);
  });

  it("creates the account's CloudWatch role for API Gateway first, unless the stage says the account has one", () => {
    expect(prod.Resources.ApiGatewayAccount!.Properties.CloudWatchRoleArn).toEqual({
      'Fn::GetAtt': ['ApiGatewayCloudWatchRole', 'Arn'],
    });
    expect(prod.Resources.ApiGatewayStage!.DependsOn).toContain('ApiGatewayAccount');
    expect(withOrigins.Resources).not.toHaveProperty('ApiGatewayAccount');
    expect(withOrigins.Resources).not.toHaveProperty('ApiGatewayCloudWatchRole');
    expect([withOrigins.Resources.ApiGatewayStage!.DependsOn ?? []].flat()).not.toContain(
      'ApiGatewayAccount',
    );
  });
});

describe('alarms', () => {
  const alarms = (template: CloudFormationTemplate) =>
    Object.fromEntries(
      resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(([id, a]) => [id, a.Properties]),
    );

  it('alarms on the Errors and Throttles of every function, at most 10 per alarm, the authorizer within a minute', () => {
    const all = Object.values(alarms(prod));
    /** The functions whose metric an alarm watches, by its metric math. */
    const watched = (metric: string, period: number): string[] =>
      all.flatMap((alarm) => {
        const metrics = alarm.Metrics
          ? alarm.Metrics.flatMap((m: any) =>
              m.MetricStat ? [{ ...m.MetricStat.Metric, Period: m.MetricStat.Period }] : [],
            )
          : [alarm];
        return metrics
          .filter((m: any) => m.Namespace === 'AWS/Lambda' && m.MetricName === metric && m.Period === period)
          .map((m: any) => m.Dimensions[0].Value.Ref);
      });
    const ids = Object.values(functionsOf(prod)).map(({ id }) => id);
    const authorizer = functionsOf(prod).pushAuthorizer!.id;
    expect(watched('Throttles', 300).sort()).toEqual([...ids].sort());
    expect(watched('Errors', 300).sort()).toEqual(ids.filter((id) => id !== authorizer).sort());
    expect(watched('Errors', 60)).toEqual([authorizer]);
    for (const alarm of all.filter((a) => a.Metrics && /function-(errors|throttles)/.test(a.AlarmName))) {
      const stats = alarm.Metrics.filter((m: any) => m.MetricStat);
      expect(stats.length).toBeLessThanOrEqual(10);
      expect(alarm).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(alarm.Metrics.find((m: any) => m.ReturnData).Expression).toBe(
        `MAX([${stats.map((m: any) => `FILL(${m.Id}, 0)`).join(', ')}])`,
      );
    }
  });

  it('alarms on the p99 duration of each push function', () => {
    for (const name of PUSH_HANDLERS) {
      const { id } = functionsOf(prod)[name]!;
      expect(alarms(prod)[`${id}P99DurationAlarm`]).toMatchObject({
        MetricName: 'Duration',
        ExtendedStatistic: 'p99',
        Threshold: 1000,
        EvaluationPeriods: 3,
      });
    }
  });

  it('alarms when an e-mail reaches its ceiling of failed logins, on the metric the login function emits', () => {
    const { id } = functionsOf(prod).login!;
    expect(alarms(prod)[`${id}LoginCeilingReachedAlarm`]).toMatchObject({
      Namespace: 'StrategyService',
      MetricName: 'LoginCeilingReached',
      // Powertools' dimensions in Lambda: the service and the function (lib/metrics.ts).
      Dimensions: [
        { Name: 'service', Value: 'strategy-service' },
        { Name: 'function', Value: { Ref: id } },
      ],
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on the API 5xx share once 20 requests came in, on this API and stage', () => {
    const alarm = alarms(prod).Api5xxRateAlarm!;
    expect(alarm.Threshold).toBe(0.01);
    const [errors, requests, rate] = alarm.Metrics;
    expect(errors.MetricStat.Metric).toEqual({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Dimensions: [
        { Name: 'ApiName', Value: 'strategy-service-prod' },
        { Name: 'Stage', Value: 'prod' },
      ],
    });
    expect(requests.MetricStat.Metric.MetricName).toBe('Count');
    expect(rate).toMatchObject({ ReturnData: true, Expression: 'IF(requests >= 20, errors / requests, 0)' });
    const [, api] = resourcesOfType(prod, 'AWS::ApiGateway::RestApi')[0]!;
    expect(api.Properties.Name).toBe('strategy-service-prod');
  });

  it('alarms on any read or write throttle of the table and of each index', () => {
    const alarm = alarms(prod).DynamoDbThrottlesAlarm!;
    const metrics = alarm.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric);
    expect(metrics.map((m: any) => `${m.MetricName} ${JSON.stringify(m.Dimensions)}`).sort()).toEqual(
      [
        `ReadThrottleEvents ${JSON.stringify([{ Name: 'TableName', Value: 'strategy-service-prod' }])}`,
        `WriteThrottleEvents ${JSON.stringify([{ Name: 'TableName', Value: 'strategy-service-prod' }])}`,
        `ReadThrottleEvents ${JSON.stringify([
          { Name: 'TableName', Value: 'strategy-service-prod' },
          { Name: 'GlobalSecondaryIndexName', Value: 'gsi1' },
        ])}`,
        `WriteThrottleEvents ${JSON.stringify([
          { Name: 'TableName', Value: 'strategy-service-prod' },
          { Name: 'GlobalSecondaryIndexName', Value: 'gsi1' },
        ])}`,
        `ReadThrottleEvents ${JSON.stringify([
          { Name: 'TableName', Value: 'strategy-service-prod' },
          { Name: 'GlobalSecondaryIndexName', Value: 'gsi2' },
        ])}`,
        `WriteThrottleEvents ${JSON.stringify([
          { Name: 'TableName', Value: 'strategy-service-prod' },
          { Name: 'GlobalSecondaryIndexName', Value: 'gsi2' },
        ])}`,
      ].sort(),
    );
    expect(alarm.Threshold).toBe(1);
  });

  it('notifies the SNS topic of the alarmTopicArn parameter, and nobody without it', () => {
    for (const alarm of Object.values(alarms(withOrigins))) {
      expect(alarm.AlarmActions).toEqual(['arn:aws:sns:eu-central-1:123456789012:ops']);
      expect(alarm.OKActions).toEqual(['arn:aws:sns:eu-central-1:123456789012:ops']);
    }
    for (const alarm of Object.values(alarms(prod))) expect(alarm.AlarmActions).toBeUndefined();
  });

  it('gives an authorizer function the stricter authorizer alarm with one line in custom.alarms', async () => {
    // The alarms plugin on a template with an authorizer, as serverless.yml would configure it.
    const { createRequire } = await import('node:module');
    const ServerlessAlarms = createRequire(import.meta.url)('../../../scripts/serverless-alarms.cjs');
    const resources: Record<string, any> = {
      PushAuthorizerLambdaFunction: { Type: 'AWS::Lambda::Function', Properties: {} },
      Table: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 't' } },
    };
    const serverless = {
      service: {
        service: 's',
        provider: { stage: 'prod', apiName: 'a', compiledCloudFormationTemplate: { Resources: resources } },
        custom: {
          alarms: {
            functionErrors: { threshold: 1, periodSeconds: 300, evaluationPeriods: 1 },
            functionThrottles: { threshold: 1, periodSeconds: 300, evaluationPeriods: 1 },
            authorizers: ['pushAuthorizer'],
            authorizerErrors: { threshold: 1, periodSeconds: 60, evaluationPeriods: 1 },
            api5xxRate: { threshold: 0.01, minimumRequests: 20, periodSeconds: 300, evaluationPeriods: 1 },
            dynamodbThrottles: { threshold: 1, periodSeconds: 300, evaluationPeriods: 1 },
            pushLatency: { functions: [], p99Milliseconds: 1000, periodSeconds: 300, evaluationPeriods: 3 },
          },
        },
        getAllFunctions: () => ['pushAuthorizer'],
      },
      getProvider: () => ({ naming: { getLambdaLogicalId: () => 'PushAuthorizerLambdaFunction' } }),
      classes: { Error },
    };
    new ServerlessAlarms(serverless).addAlarms();
    expect(resources.PushAuthorizerLambdaFunctionErrorsAlarm.Properties).toMatchObject({
      AlarmName: 's-prod-pushAuthorizer-authorizer-errors',
      MetricName: 'Errors',
      Period: 60,
      Threshold: 1,
    });
    serverless.service.custom.alarms.authorizers = ['pushAuthorizr'];
    expect(() => new ServerlessAlarms(serverless).addAlarms()).toThrow(
      /"pushAuthorizr", which is not a function/,
    );
  });
});

describe('least privilege: one role per function', () => {
  it('knows every function: each is a JWT, push, page or public function, with its DynamoDB calls', () => {
    const listed = [
      ...JWT_FUNCTIONS,
      ...PUSH_FUNCTIONS,
      ...PAGE_FUNCTIONS,
      ...PUBLIC_FUNCTIONS,
      ...QUEUE_FUNCTIONS,
      ...SCHEDULED_FUNCTIONS,
    ].sort();
    expect(Object.keys(functionsOf(prod)).sort()).toEqual(listed);
  });

  it('gives every function a role of its own', () => {
    const roles = Object.values(functionsOf(prod)).map(({ fn }) => roleOf(prod, fn).roleId);
    expect(new Set(roles).size).toBe(roles.length);
    expect(roles).not.toContain('IamRoleLambdaExecution');
  });

  it('allows DynamoDB item actions on the table for named partitions only, and Query alone on an index', () => {
    for (const [name, { fn }] of Object.entries(functionsOf(prod))) {
      const dynamo = statementsOf(roleOf(prod, fn).role).filter((s) =>
        JSON.stringify(s.Action).includes('dynamodb:'),
      );
      for (const statement of dynamo) {
        if (JSON.stringify(statement.Resource) === JSON.stringify([TABLE_ARN])) {
          expect(Object.keys(statement.Condition ?? {}), `${name} ${statement.Action}`).toEqual([
            'ForAllValues:StringLike',
          ]);
          expect(leadingKeysOf(statement)?.length, `${name} ${statement.Action}`).toBeGreaterThan(0);
        } else {
          expect(
            [[INDEX_ARN], [ALERT_INDEX_ARN]].map((r) => JSON.stringify(r)),
            name,
          ).toContain(JSON.stringify(statement.Resource));
          expect(statement.Action, name).toEqual(['dynamodb:Query']);
        }
      }
    }
  });

  it("grants each function the partition keys its code builds (read from the function's bundle)", () => {
    // The pattern of each key builder of lib/db/keys.ts that names a table partition: what comes
    // before its first argument, and a wildcard; a fixed key as it is.
    const marker = '\u0000';
    const patternOf = (name: string) => {
      const built = (keys as Record<string, (...args: string[]) => { pk?: string }>)[name]!(
        marker,
        marker,
        marker,
      );
      if (built.pk === undefined) return undefined;
      return built.pk.includes(marker) ? `${built.pk.split(marker)[0]}*` : built.pk;
    };
    for (const [name, { fn }] of Object.entries(functionsOf(prod))) {
      const used = new Set<string>();
      for (const [, builder] of bundles[name]!.matchAll(/\bkeys\d*\.(\w+)\(/g)) {
        if (!(builder! in keys)) continue;
        const pattern = patternOf(builder!);
        if (pattern) used.add(pattern);
      }
      const granted = [
        ...new Set(statementsOf(roleOf(prod, fn).role).flatMap((s) => leadingKeysOf(s) ?? [])),
      ];
      // Each one it builds, and nothing more.
      expect(granted.sort(), name).toEqual([...used].sort());
    }
  });

  it("grants each function what its code sends to DynamoDB (read from the function's bundle)", () => {
    const commandActions: Record<string, string[]> = {
      Get: ['GetItem'],
      Put: ['PutItem'],
      Update: ['UpdateItem'],
      Delete: ['DeleteItem'],
      Query: ['Query'],
      BatchGet: ['BatchGetItem'],
      BatchWrite: ['BatchWriteItem'],
      // The low-level client's commands (a batch of measurements is written with it).
      BatchWriteItem: ['BatchWriteItem'],
      BatchGetItem: ['BatchGetItem'],
      GetItem: ['GetItem'],
      PutItem: ['PutItem'],
      UpdateItem: ['UpdateItem'],
      DeleteItem: ['DeleteItem'],
    };
    const transactParts: Record<string, string> = {
      Put: 'PutItem',
      Update: 'UpdateItem',
      Delete: 'DeleteItem',
      ConditionCheck: 'ConditionCheckItem',
    };
    for (const [name, { fn }] of Object.entries(functionsOf(prod))) {
      const code = bundles[name]!;
      const used = new Set<string>();
      for (const [, command] of code.matchAll(/new (?:\w+\.)?(\w+?)Command\d*\(/g)) {
        if (command === 'TransactWrite') {
          for (const [part, action] of Object.entries(transactParts)) {
            if (new RegExp(`\\b${part}: \\{`).test(code)) used.add(action);
          }
        } else {
          for (const action of commandActions[command!] ?? []) used.add(action);
        }
      }
      const granted = actionsOf(statementsOf(roleOf(prod, fn).role), 'dynamodb:');
      // Each one it sends, and nothing more.
      expect(granted, name).toEqual([...used].sort());
    }
  });

  it('lets only the functions that publish or deliver webhooks, or schedule or run pulls, use the queues, each only as it must', () => {
    const functions = functionsOf(prod);
    const WEBHOOKS = JSON.stringify({ 'Fn::GetAtt': ['WebhookDeliveryQueue', 'Arn'] });
    const PULLS = JSON.stringify({ 'Fn::GetAtt': ['PullRunQueue', 'Arn'] });
    // Its event source's own three.
    const EVENT_SOURCE = ['DeleteMessage', 'GetQueueAttributes', 'ReceiveMessage'];
    const expected: Record<string, Record<string, string[]>> = {
      revokeApiKey: { [WEBHOOKS]: ['SendMessage'] },
      rollApiKey: { [WEBHOOKS]: ['SendMessage'] },
      checkAlerts: { [WEBHOOKS]: ['SendMessage'] },
      githubSecretScanning: { [WEBHOOKS]: ['SendMessage'] },
      // And the wait before a delivery's next attempt.
      deliverWebhooks: { [WEBHOOKS]: ['ChangeMessageVisibility', ...EVENT_SOURCE].sort() },
      // A run may disable its integration: integration.disabled to the tenant's webhooks.
      runPullIntegration: { [WEBHOOKS]: ['SendMessage'] },
      schedulePullIntegrations: { [PULLS]: ['SendMessage'] },
      runPullIntegrations: { [PULLS]: EVENT_SOURCE, [WEBHOOKS]: ['SendMessage'] },
    };
    for (const [name, { fn }] of Object.entries(functions)) {
      const statements = statementsOf(roleOf(prod, fn).role).filter((s) =>
        JSON.stringify(s.Action).includes('sqs:'),
      );
      const granted: Record<string, string[]> = {};
      for (const statement of statements) {
        for (const resource of [statement.Resource].flat()) {
          const key = JSON.stringify(resource);
          granted[key] = [...new Set([...(granted[key] ?? []), ...actionsOf([statement], 'sqs:')])].sort();
        }
      }
      expect(granted, name).toEqual(expected[name] ?? {});
    }
  });

  it('lets only the JWT functions and the webhook worker read the JWT key, only the functions that seal or open tenant secrets read the secrets key, each decrypted only through SSM for its parameter', () => {
    const functions = functionsOf(prod);
    const JWT_KEY = [...JWT_FUNCTIONS, 'deliverWebhooks'];
    // Webhook secrets and pull credentials: sealed at creation or change, opened to sign or fetch.
    const SECRETS_KEY = [
      'createWebhook',
      'testWebhook',
      'deliverWebhooks',
      'createPullIntegration',
      'updatePullIntegration',
      'previewPullIntegration',
      'runPullIntegration',
      'runPullIntegrations',
    ];
    for (const [name, { fn }] of Object.entries(functions)) {
      const statements = statementsOf(roleOf(prod, fn).role);
      const parameters = [
        ...(JWT_KEY.includes(name) ? [parameterArn('prod')] : []),
        ...(SECRETS_KEY.includes(name) ? [parameterArn('prod', 'secrets-key')] : []),
      ];
      const reads = statements.filter((s) => JSON.stringify(s.Action).includes('ssm:'));
      const decrypts = statements.filter((s) => JSON.stringify(s.Action).includes('kms:'));
      expect(
        reads.map((s) => s.Resource),
        name,
      ).toEqual(parameters);
      expect(
        decrypts.map((s) => s.Condition.StringEquals['kms:EncryptionContext:PARAMETER_ARN']),
        name,
      ).toEqual(parameters);
      for (const read of reads) expect(read.Action, name).toEqual(['ssm:GetParameter']);
      for (const decrypt of decrypts) {
        expect(decrypt.Action, name).toEqual(['kms:Decrypt']);
        expect(decrypt.Condition.StringEquals['kms:ViaService'], name).toEqual({
          'Fn::Join': ['', ['ssm.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
        });
      }
    }
  });
});

describe('the JWT key is an SSM SecureString read at run time', () => {
  it('puts only the parameter name into the environment, never the key or a dynamic reference to it', () => {
    for (const [name, { fn }] of Object.entries(functionsOf(prod))) {
      const variables = fn.Properties.Environment.Variables;
      expect(variables.JWT_SECRET_PARAMETER, name).toBe('/strategy-service/prod/jwt-secret');
      expect(variables, name).not.toHaveProperty('JWT_SECRET');
    }
    expect(JSON.stringify(prod)).not.toContain('{{resolve:ssm');
  });

  it('keeps the JWT verifier and the SSM read out of the push and page bundles', () => {
    for (const name of JWT_FUNCTIONS) {
      expect(bundles[name], name).toContain('@aws-sdk/client-ssm');
      expect(bundles[name], name).toContain('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    }
    // The workers open secrets, and verify no token.
    for (const name of QUEUE_FUNCTIONS) {
      expect(bundles[name], name).toContain('@aws-sdk/client-ssm');
      expect(bundles[name], name).not.toContain('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    }
    for (const name of [...PUSH_FUNCTIONS, ...PAGE_FUNCTIONS, ...PUBLIC_FUNCTIONS, ...SCHEDULED_FUNCTIONS]) {
      expect(bundles[name], name).not.toContain('@aws-sdk/client-ssm');
      expect(bundles[name], name).not.toContain('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    }
  });
});

describe('CORS', () => {
  const optionsMethods = (template: CloudFormationTemplate) =>
    resourcesOfType(template, 'AWS::ApiGateway::Method').filter(
      ([, m]) => m.Properties.HttpMethod === 'OPTIONS',
    );

  it('allows no browser origin by default: no OPTIONS method, no origin for the Lambdas', () => {
    expect(optionsMethods(prod)).toEqual([]);
    for (const { fn } of Object.values(functionsOf(prod))) {
      expect(fn.Properties.Environment.Variables.CORS_ALLOWED_ORIGINS).toBe('');
    }
  });

  it('answers preflights of the JWT endpoints for the configured origins only, never of push', () => {
    const methods = optionsMethods(withOrigins);
    const resourcesById = Object.fromEntries(resourcesOfType(withOrigins, 'AWS::ApiGateway::Resource'));
    const paths = methods
      .map(([, m]) => resourcesById[m.Properties.ResourceId.Ref]!.Properties.PathPart)
      .sort();
    expect(paths).toEqual(
      [
        'api-keys',
        'audit-events',
        'kpis',
        'login',
        'logout',
        'measurements',
        'refresh-token',
        'roll',
        'strategic-cycles',
        'usage',
        '{id}',
        '{kpiId}',
        'webhooks',
        '{id}',
        'deliveries',
        'test',
        'pull',
        '{id}',
        'preview',
        'run',
        'runs',
        'users',
        '{id}',
        'password-reset',
        '{id}',
        'accept-invitation',
        'change-password',
        'projection',
        'targets',
        'kpi-owners',
        'preview',
      ].sort(),
    );
    for (const [, method] of methods) {
      const [response] = method.Properties.Integration.IntegrationResponses;
      expect(response.ResponseParameters['method.response.header.Access-Control-Allow-Origin']).toBe(
        `'${ORIGINS[0]}'`,
      );
      // Any other listed origin is echoed by the mapping template; an unlisted one never is.
      const template = response.ResponseTemplates['application/json'];
      expect(template).toContain('$origin.matches("https://app[.]example[.]com")');
      expect(template).toContain('$origin.matches("https://admin[.]example[.]com")');
      expect(response.ResponseParameters).not.toHaveProperty(
        'method.response.header.Access-Control-Allow-Credentials',
      );
      expect(response.ResponseParameters['method.response.header.Access-Control-Allow-Headers']).toBe(
        "'Content-Type,Authorization,X-Tenant-ID'",
      );
    }
    for (const { fn } of Object.values(functionsOf(withOrigins))) {
      expect(fn.Properties.Environment.Variables.CORS_ALLOWED_ORIGINS).toBe(ORIGINS.join(','));
    }
  });
});

describe('AWS WAF in front of the API stage', () => {
  /**
   * Whether a resource's condition holds when the stack is deployed as `serverless deploy` does it:
   * every stack parameter at its default, which is the stage parameter resolved at package time.
   */
  const created = (template: CloudFormationTemplate, resource: CloudFormationResource) => {
    if (!resource.Condition) return true;
    const condition = template.Conditions?.[resource.Condition] as { 'Fn::Equals': unknown[] };
    const [left, right] = condition['Fn::Equals'].map((side: any) =>
      typeof side === 'string' ? side : template.Parameters?.[side.Ref]?.Default,
    );
    expect(typeof left === 'string' && typeof right === 'string', resource.Condition).toBe(true);
    return left === right;
  };
  const wafResources = (template: CloudFormationTemplate) =>
    Object.values(template.Resources).filter((resource) => resource.Type.startsWith('AWS::WAFv2::'));
  const webAcl = () => {
    const acls = resourcesOfType(prod, 'AWS::WAFv2::WebACL');
    expect(acls).toHaveLength(1);
    const [[id, acl]] = acls as [[string, CloudFormationResource]];
    return { id, acl, rules: acl.Properties.Rules as any[] };
  };

  it('creates a regional web ACL, allowing by default, with CloudWatch metrics for it and each rule', () => {
    const { acl, rules } = webAcl();
    expect(created(prod, acl)).toBe(true);
    expect(acl.Properties).toMatchObject({
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      VisibilityConfig: { CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true },
    });
    for (const rule of rules) {
      expect(rule.VisibilityConfig, rule.Name).toMatchObject({
        CloudWatchMetricsEnabled: true,
        MetricName: expect.stringMatching(/^strategy-service-prod-/),
      });
    }
  });

  it('limits the requests per address to /api/auth/*, with and without the stage prefix, with a 429 problem', () => {
    const { acl, rules } = webAcl();
    const rule = rules.find((r) => r.Statement.RateBasedStatement)!;
    expect(rule).toBeDefined();
    const { AggregateKeyType, EvaluationWindowSec, Limit, ScopeDownStatement } =
      rule.Statement.RateBasedStatement;
    expect({ AggregateKeyType, EvaluationWindowSec, Limit }).toEqual({
      AggregateKeyType: 'IP',
      EvaluationWindowSec: 300,
      Limit: 100,
    });
    const matches = ScopeDownStatement.OrStatement.Statements.map((s: any) => s.ByteMatchStatement);
    for (const match of matches) {
      expect(match).toMatchObject({ FieldToMatch: { UriPath: {} }, PositionalConstraint: 'STARTS_WITH' });
    }
    expect(matches.map((m: any) => m.SearchString).sort()).toEqual(['/api/auth/', '/prod/api/auth/']);
    // `/api/%61uth/login`, `/api//auth/login` and `/API/Auth/login` reach the login too: the path is
    // percent-decoded, then normalised, then lowercased (in that order) before it is compared, with a
    // search string that is already all three.
    for (const match of matches) {
      const steps = [...match.TextTransformations].sort((a: any, b: any) => a.Priority - b.Priority);
      expect(steps.map((step: any) => step.Type)).toEqual(['URL_DECODE', 'NORMALIZE_PATH', 'LOWERCASE']);
      expect(new Set(steps.map((step: any) => step.Priority)).size).toBe(steps.length);
      expect(match.SearchString).toBe(decodeURIComponent(match.SearchString).toLowerCase());
    }
    const { ResponseCode, CustomResponseBodyKey, ResponseHeaders } = rule.Action.Block.CustomResponse;
    expect(ResponseCode).toBe(429);
    // WAF's own answer replaces API Gateway's gateway responses: it carries their headers itself.
    const headers = Object.fromEntries(
      (ResponseHeaders as { Name: string; Value: string }[]).map(({ Name, Value }) => [Name, Value]),
    );
    expect(headers).toEqual({
      'Retry-After': '300',
      'Cache-Control': 'no-store',
      'Strict-Transport-Security': STRICT_TRANSPORT_SECURITY,
      ...JSON_SECURITY_HEADERS,
    });
    const body = JSON.parse(acl.Properties.CustomResponseBodies[CustomResponseBodyKey].Content);
    expect(body).toMatchObject({
      type: problemType('RATE_LIMIT_EXCEEDED'),
      title: errorCatalog.RATE_LIMIT_EXCEEDED.title,
      status: 429,
    });
  });

  it('applies the AWS managed common rule set, only counting its body size rule (a full batch passes 8 KB)', () => {
    const { rules } = webAcl();
    const rule = rules.find((r) => r.Statement.ManagedRuleGroupStatement)!;
    expect(rule.OverrideAction).toEqual({ None: {} });
    expect(rule.Statement.ManagedRuleGroupStatement).toEqual({
      VendorName: 'AWS',
      Name: 'AWSManagedRulesCommonRuleSet',
      RuleActionOverrides: [{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }],
    });
    expect(new Set(rules.map((r) => r.Priority)).size).toBe(rules.length);
  });

  it("associates the web ACL with the API's stage, once the stage exists", () => {
    const { id } = webAcl();
    const associations = resourcesOfType(prod, 'AWS::WAFv2::WebACLAssociation');
    expect(associations).toHaveLength(1);
    const [[, association]] = associations as [[string, CloudFormationResource]];
    expect(created(prod, association)).toBe(true);
    expect([association.DependsOn].flat()).toContain('ApiGatewayStage');
    expect(association.Properties).toEqual({
      ResourceArn: {
        'Fn::Sub': `arn:\${AWS::Partition}:apigateway:\${AWS::Region}::/restapis/\${ApiGatewayRestApi}/stages/prod`,
      },
      WebACLArn: { 'Fn::GetAtt': [id, 'Arn'] },
    });
  });

  it('creates neither the web ACL nor its association on a stage with wafEnabled "false"', () => {
    expect(prod.Parameters?.WafEnabled).toMatchObject({ Default: 'true', AllowedValues: ['true', 'false'] });
    expect(withOrigins.Parameters?.WafEnabled?.Default).toBe('false');
    const resources = wafResources(withOrigins);
    expect(resources.map((r) => r.Type).sort()).toEqual([
      'AWS::WAFv2::WebACL',
      'AWS::WAFv2::WebACLAssociation',
    ]);
    for (const resource of resources) expect(created(withOrigins, resource), resource.Type).toBe(false);
  });
});

describe("API Gateway's own answers", () => {
  it('renders every 4xx and 5xx API Gateway answers itself with the security headers of the functions’ answers', () => {
    const responses = resourcesOfType(prod, 'AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties);
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
      const response = responses.find((r) => r.ResponseType === type);
      expect(response, type).toMatchObject({ RestApiId: { Ref: 'ApiGatewayRestApi' } });
      // No status of its own: the answer keeps API Gateway's (413, 502, 504, a WAF block's 403).
      expect(response, type).not.toHaveProperty('StatusCode');
    }
    for (const response of responses) {
      const headers = response.ResponseParameters as Record<string, string>;
      const header = (name: string) => headers[`gatewayresponse.header.${name}`];
      expect(header('Strict-Transport-Security'), response.ResponseType).toBe(
        `'${STRICT_TRANSPORT_SECURITY}'`,
      );
      expect(header('X-Content-Type-Options'), response.ResponseType).toBe("'nosniff'");
      expect(header('Content-Security-Policy'), response.ResponseType).toBe("'default-src \\'none\\''");
    }
  });
});

describe('webhook delivery on SQS', () => {
  it('has a delivery queue whose redrive policy moves a message to its dead-letter queue after the 8 attempts', () => {
    const queue = prod.Resources.WebhookDeliveryQueue!;
    expect(queue.Type).toBe('AWS::SQS::Queue');
    expect(queue.Properties).toMatchObject({
      VisibilityTimeout: 360,
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': ['WebhookDeliveryDeadLetterQueue', 'Arn'] },
        maxReceiveCount: MAX_DELIVERY_ATTEMPTS,
      },
    });
    // The messages outlive the schedule (27.6 hours), and the dead letters are kept long enough to look at.
    const schedule = RETRY_DELAYS_SECONDS.reduce((sum, seconds) => sum + seconds, 0);
    expect(queue.Properties.MessageRetentionPeriod).toBeGreaterThan(schedule);
    expect(prod.Resources.WebhookDeliveryDeadLetterQueue!.Properties.MessageRetentionPeriod).toBe(1_209_600);
    // The queue hides a message being processed for 6x the worker's timeout, as AWS advises.
    const { fn } = functionsOf(prod).deliverWebhooks!;
    expect(queue.Properties.VisibilityTimeout).toBe(6 * fn.Properties.Timeout);
  });

  it('runs the worker from the queue, reporting batch item failures', () => {
    const [, mapping] = resourcesOfType(prod, 'AWS::Lambda::EventSourceMapping').find(
      ([, m]) => m.Properties.EventSourceArn['Fn::GetAtt'][0] === 'WebhookDeliveryQueue',
    ) as [string, CloudFormationResource];
    expect(mapping.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': ['WebhookDeliveryQueue', 'Arn'] },
      FunctionName: { 'Fn::GetAtt': ['DeliverWebhooksLambdaFunction', 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('tells every function the stage and the queue, and alarms on any dead letter', () => {
    for (const [name, { fn }] of Object.entries(functionsOf(prod))) {
      expect(fn.Properties.Environment.Variables.STAGE, name).toBe('prod');
      expect(fn.Properties.Environment.Variables.WEBHOOK_QUEUE_URL, name).toEqual({
        Ref: 'WebhookDeliveryQueue',
      });
    }
    expect(prod.Resources.WebhookDeliveryDeadLetterQueueMessagesAlarm!.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': ['WebhookDeliveryDeadLetterQueue', 'QueueName'] } },
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('lets the operator CLI publish key events to the queue', () => {
    const statements = prod.Resources.OperatorPolicy!.Properties.PolicyDocument.Statement as any[];
    expect(statements.find((s) => s.Sid === 'PublishWebhookDeliveries')).toMatchObject({
      Action: ['sqs:GetQueueUrl', 'sqs:SendMessage'],
      Resource: { 'Fn::GetAtt': ['WebhookDeliveryQueue', 'Arn'] },
    });
  });
});

describe('pull integrations on SQS and EventBridge', () => {
  it('has a pull queue whose redrive policy moves a message the worker failed 3 times to its dead-letter queue, with an alarm', () => {
    const queue = prod.Resources.PullRunQueue!;
    const { fn } = functionsOf(prod).runPullIntegrations!;
    expect(queue.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 6 * fn.Properties.Timeout,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': ['PullRunDeadLetterQueue', 'Arn'] },
        maxReceiveCount: 3,
      },
    });
    expect(prod.Resources.PullRunDeadLetterQueueMessagesAlarm!.Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
    });
  });

  it('runs the worker from the queue with a maximum concurrency, reporting batch item failures', () => {
    const [, mapping] = resourcesOfType(prod, 'AWS::Lambda::EventSourceMapping').find(
      ([, m]) => m.Properties.EventSourceArn['Fn::GetAtt'][0] === 'PullRunQueue',
    ) as [string, CloudFormationResource];
    const { fn } = functionsOf(prod).runPullIntegrations!;
    expect(mapping.Properties).toMatchObject({
      FunctionName: { 'Fn::GetAtt': ['RunPullIntegrationsLambdaFunction', 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // SQS never invokes more workers than the function may run: no throttled batches come back.
    expect(mapping.Properties.ScalingConfig.MaximumConcurrency).toBeLessThanOrEqual(
      fn.Properties.ReservedConcurrentExecutions,
    );
  });

  it('runs the scheduler every minute', () => {
    const rules = resourcesOfType(prod, 'AWS::Events::Rule').filter(([, rule]) =>
      JSON.stringify(rule.Properties.Targets).includes('SchedulePullIntegrationsLambdaFunction'),
    );
    expect(rules.map(([, rule]) => rule.Properties.ScheduleExpression)).toEqual(['rate(1 minute)']);
  });

  it('tells every function the pull queue and the secrets key parameter, never the key', () => {
    for (const [name, { fn }] of Object.entries(functionsOf(prod))) {
      const variables = fn.Properties.Environment.Variables;
      expect(variables.PULL_QUEUE_URL, name).toEqual({ Ref: 'PullRunQueue' });
      expect(variables.SECRETS_KEY_PARAMETER, name).toBe('/strategy-service/prod/secrets-key');
      expect(variables, name).not.toHaveProperty('SECRETS_KEY');
    }
  });
});

describe('capacity of the functions that call tenant URLs', () => {
  /**
   * The functions whose bundle builds the egress guard (lib/egress/): the ones that call URLs tenants
   * chose. The bundles are tree-shaken, so a function that never sends such a request does not carry it.
   */
  const callingTenantUrls = () =>
    Object.entries(bundles)
      .filter(([, code]) => /\bcreateEgress\b/.test(code))
      .map(([name]) => name)
      .sort();

  it('finds them by their bundle: the webhook functions, and neither push nor login nor the authorizer', () => {
    const calling = callingTenantUrls();
    expect(calling).toEqual(
      expect.arrayContaining([
        'deliverWebhooks',
        'testWebhook',
        'previewPullIntegration',
        'previewPullDefinition',
        'runPullIntegration',
        'runPullIntegrations',
      ]),
    );
    // The pull functions that only manage integrations, and the scheduler, never call a source.
    for (const name of [
      ...PUSH_FUNCTIONS,
      'login',
      'refreshToken',
      'createWebhook',
      'listKpis',
      'createPullIntegration',
      'updatePullIntegration',
      'listPullIntegrations',
      'schedulePullIntegrations',
    ]) {
      expect(calling, name).not.toContain(name);
    }
  });

  it('gives every one of them reserved concurrency, and all of them together at most 100 of the account’s 1,000', () => {
    const fns = functionsOf(prod);
    const reserved = callingTenantUrls().map((name) => {
      const value = fns[name]!.fn.Properties.ReservedConcurrentExecutions;
      expect(Number.isInteger(value) && value > 0, `${name} has reserved concurrency`).toBe(true);
      return value as number;
    });
    expect(reserved.reduce((sum, value) => sum + value, 0)).toBeLessThanOrEqual(100);
    // Everything else draws on the unreserved pool: no other function reserves any of it.
    for (const [name, { fn }] of Object.entries(fns)) {
      if (!callingTenantUrls().includes(name)) {
        expect(fn.Properties.ReservedConcurrentExecutions, name).toBeUndefined();
      }
    }
  });

  it('lets the queue start no more delivery workers than the worker’s reserved concurrency', () => {
    const [, mapping] = resourcesOfType(prod, 'AWS::Lambda::EventSourceMapping').find(
      ([, m]) => m.Properties.EventSourceArn['Fn::GetAtt'][0] === 'WebhookDeliveryQueue',
    ) as [string, CloudFormationResource];
    const reserved = functionsOf(prod).deliverWebhooks!.fn.Properties.ReservedConcurrentExecutions;
    expect(mapping.Properties.ScalingConfig.MaximumConcurrency).toBeGreaterThanOrEqual(2);
    expect(mapping.Properties.ScalingConfig.MaximumConcurrency).toBeLessThanOrEqual(reserved);
  });

  it('gives each attempt at most 5 s, within the test function’s own time-out', () => {
    expect(ATTEMPT_TIMEOUT_MS).toBeLessThanOrEqual(5000);
    const { fn } = functionsOf(prod).testWebhook!;
    expect(fn.Properties.Timeout * 1000).toBeGreaterThan(ATTEMPT_TIMEOUT_MS);
  });
});

describe('the table and the outputs', () => {
  it('turns deletion protection on and retains the table', () => {
    const [, table] = resourcesOfType(prod, 'AWS::DynamoDB::Table')[0]!;
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('outputs the API URL and the key page URL', () => {
    const url = (path: string) => ({
      'Fn::Join': [
        '',
        [
          'https://',
          { Ref: 'ApiGatewayRestApi' },
          '.execute-api.',
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
          path,
        ],
      ],
    });
    expect(prod.Outputs?.ApiUrl?.Value).toEqual(url('/prod/api'));
    expect(prod.Outputs?.ApiKeyPageUrl?.Value).toEqual(url('/prod/platform/api-keys'));
  });
});

describe('the template as a whole', () => {
  const PSEUDO = [
    'AWS::Partition',
    'AWS::Region',
    'AWS::AccountId',
    'AWS::URLSuffix',
    'AWS::StackName',
    'AWS::NoValue',
  ];
  const references = (
    node: unknown,
    found: { refs: string[]; conditions: string[] } = { refs: [], conditions: [] },
  ) => {
    if (Array.isArray(node)) for (const item of node) references(item, found);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'Ref' && typeof value === 'string') found.refs.push(value);
        else if (key === 'Fn::GetAtt') found.refs.push((value as string[])[0]!);
        else if (key === 'Fn::If') found.conditions.push((value as string[])[0]!);
        else if (key === 'Condition' && typeof value === 'string') found.conditions.push(value);
        references(value, found);
      }
    }
    return found;
  };

  // cfn-lint is a Python tool and PyPI is not reachable from every machine: it runs when installed.
  it('references only resources, conditions and pseudo parameters it has, and passes cfn-lint when installed', () => {
    for (const template of [prod, withOrigins]) {
      const { refs, conditions } = references(template.Resources);
      const outputs = references(template.Outputs);
      for (const ref of [...refs, ...outputs.refs]) {
        expect(
          ref in template.Resources || ref in (template.Parameters ?? {}) || PSEUDO.includes(ref),
          ref,
        ).toBe(true);
      }
      for (const condition of conditions)
        expect(template.Conditions ?? {}, condition).toHaveProperty(condition);
    }
    if (spawnSync('cfn-lint', ['--version']).status === 0) {
      for (const template of [prod, withOrigins]) {
        // W3005: serverless-iam-roles-per-function adds a DependsOn on the role that the function's
        // GetAtt of the role already implies; redundant, not wrong.
        execFileSync(
          'cfn-lint',
          [
            '--ignore-checks',
            'W3005',
            '--',
            join(template.packageDir!, 'cloudformation-template-update-stack.json'),
          ],
          { stdio: 'pipe' },
        );
      }
    }
  }, 240_000);
});

describe('least privilege: what a run of each function sends', () => {
  /** One item access as IAM judges it: the action, the table or the index, the partition keys. */
  interface Access {
    action: string;
    /** The index a Query reads (its name), or false for the table. */
    index: string | false;
    leadingKeys: string[];
  }

  /** A key's partition key, as a DocumentClient command or a low-level one (BatchWriteItem) gives it. */
  const pkOf = (key: Record<string, any>): string => (typeof key.pk === 'string' ? key.pk : key.pk?.S);

  const TRANSACT_ACTIONS: Record<string, string> = {
    Put: 'PutItem',
    Update: 'UpdateItem',
    Delete: 'DeleteItem',
    ConditionCheck: 'ConditionCheckItem',
  };

  /** What IAM authorizes for one call: a transaction is one authorization per item. */
  const accessesOf = ({ command, input }: Call<Record<string, any>>): Access[] => {
    const action = command.replace(/Command$/, '');
    switch (action) {
      case 'GetItem':
      case 'UpdateItem':
      case 'DeleteItem':
        return [{ action, index: false, leadingKeys: [pkOf(input.Key)] }];
      case 'PutItem':
        return [{ action, index: false, leadingKeys: [pkOf(input.Item)] }];
      case 'BatchGetItem':
        return [
          {
            action,
            index: false,
            leadingKeys: Object.values<{ Keys: Record<string, any>[] }>(input.RequestItems).flatMap((r) =>
              r.Keys.map(pkOf),
            ),
          },
        ];
      case 'BatchWriteItem':
        return [
          {
            action,
            index: false,
            leadingKeys: Object.values<Record<string, any>[]>(input.RequestItems)
              .flat()
              .map((write) => pkOf(write.PutRequest?.Item ?? write.DeleteRequest?.Key)),
          },
        ];
      case 'Query': {
        const placeholder = /\bpk = (:\w+)/.exec(input.KeyConditionExpression)?.[1];
        return [
          {
            action,
            index: input.IndexName ?? false,
            leadingKeys: input.IndexName ? [] : [input.ExpressionAttributeValues[placeholder!]],
          },
        ];
      }
      case 'TransactWriteItems':
        return input.TransactItems.map((item: Record<string, any>) => {
          const [part, body] = Object.entries(item)[0] as [string, Record<string, any>];
          return {
            action: TRANSACT_ACTIONS[part]!,
            index: false,
            leadingKeys: [pkOf(body.Key ?? body.Item)],
          };
        });
      default:
        throw new Error(`no IAM mapping for ${command}`);
    }
  };

  const allowedBy = (statements: any[], access: Access) =>
    statements.some((statement) => {
      if (statement.Effect !== 'Allow') return false;
      if (![statement.Action].flat().includes(`dynamodb:${access.action}`)) return false;
      const resource = access.index ? indexArn(access.index) : TABLE_ARN;
      if (JSON.stringify(statement.Resource) !== JSON.stringify([resource])) return false;
      const patterns = leadingKeysOf(statement);
      return (
        patterns === undefined ||
        access.leadingKeys.every((key) => patterns.some((pattern) => iamLike(pattern, key)))
      );
    });

  /** A source of KPI values on this machine, for the pull functions' runs. */
  let source: PullSource | undefined;
  afterAll(() => source?.close());
  const sourceUrl = async () => {
    source ??= await startPullSource();
    source.answers['/value'] = { json: { v: 42 } };
    return source.url('/value');
  };
  const pullDefinition = (kpiId: string, url = 'https://metrics.example.com/v') => ({
    name: 'Metrics',
    url,
    auth: { type: 'bearer' as const, token: 'tok' },
    schedule: { every: '15m' as const },
    measurements: [{ kpiId, kpiType: 'BSC_KPI' as const, actual: 'v' }],
  });
  /** A pull integration of the tenant, due now, whose source answers. */
  const aPull = async (tenantId: string, kpiId: string) =>
    createIntegration(pullDeps, { ...pullDefinition(kpiId, await sourceUrl()), tenantId, createdBy: null });

  /** An endpoint of the tenant (https on any stage; http to a closed port of this machine for failures). */
  const subscribe = (
    tenantId: string,
    eventTypes: ('kpi.quiet' | 'api_key.revoked' | 'api_key.rolled' | 'integration.disabled')[],
    url = 'https://hooks.example.com/x',
  ) => createEndpoint(webhookDeps, { tenantId, url, eventTypes, createdBy: null });

  type Scenario = (tenant: TestTenant) => Promise<{ run: () => Promise<{ status: number }[]> }>;

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => ({
    method: 'POST',
    path: `/api${path}`,
    headers,
    body,
  });
  const get = (path: string, headers: Record<string, string>, query?: Record<string, string>) => ({
    method: 'GET',
    path: `/api${path}`,
    headers,
    ...(query ? { query } : {}),
  });

  /**
   * A run of each function over what it does: for a JWT function with a session of its own (so the
   * session check reads), for a push function with a tenant the container has not cached. `prepare`
   * writes what the run needs; only the run is recorded.
   */
  const scenarios: Record<string, Scenario> = {
    login: async ({ users }) => ({
      run: async () => [
        await invoke(
          loginHandler,
          post('/auth/login', { email: users.ADMIN.email, password: users.ADMIN.password }),
        ),
        // A wrong password, and an unknown e-mail: 401 each.
        {
          status:
            (await invoke(loginHandler, post('/auth/login', { email: users.ADMIN.email, password: 'x' })))
              .status - 200,
        },
        {
          status:
            (await invoke(loginHandler, post('/auth/login', { email: 'ghost@example.test', password: 'x' })))
              .status - 200,
        },
      ],
    }),
    refreshToken: async ({ users }) => ({
      run: async () => [
        await invoke(refreshHandler, post('/auth/refresh-token', { refreshToken: users.ADMIN.refreshToken })),
      ],
    }),
    logout: async ({ users }) => ({
      run: async () => [
        await invoke(
          logoutHandler,
          post('/auth/logout', { refreshToken: users.ADMIN.refreshToken, everywhere: true }),
        ),
      ],
    }),
    listStrategicCycles: async ({ tenant, users }) => {
      await createTestCycles(tenant.id, ['One', 'Two']);
      return {
        run: async () => {
          const first = await invoke(
            listCyclesHandler,
            get('/strategic-cycles', bearer(users.VIEWER.token), { limit: '1' }),
          );
          const second = await invoke(
            listCyclesHandler,
            get('/strategic-cycles', bearer(users.VIEWER.token), {
              limit: '1',
              cursor: first.body.nextCursor,
            }),
          );
          return [first, second];
        },
      };
    },
    listKpis: async ({ users }) => ({
      run: async () => [
        await invoke(listKpisHandler, get('/kpis', bearer(users.VIEWER.token), { include: 'activity' })),
      ],
    }),
    getKpi: async ({ kpis, users }) => {
      const kpi = kpis[0]!;
      await putMeasurement(kpi, '2026-01-01', '2026-01-31', 1);
      await putMeasurement(kpi, '2026-02-01', '2026-02-28', 2);
      const read = (query: Record<string, string>) =>
        invoke(getKpiHandler, {
          ...get(`/kpis/${kpi.id}`, bearer(users.VIEWER.token), query),
          pathParameters: { kpiId: kpi.id },
        });
      return {
        run: async () => {
          const first = await read({ limit: '1' });
          return [first, await read({ limit: '1', cursor: first.body.nextCursor })];
        },
      };
    },
    listMeasurements: async ({ kpis, users }) => {
      const kpi = kpis[0]!;
      await putMeasurement(kpi, '2026-01-01', '2026-01-31', 1);
      return {
        run: async () => [
          await invoke(listMeasurementsHandler, {
            ...get(`/kpis/${kpi.id}/measurements`, bearer(users.VIEWER.token)),
            pathParameters: { kpiId: kpi.id },
          }),
        ],
      };
    },
    createKpi: async ({ users }) => ({
      run: async () => [
        await invoke(
          createKpiHandler,
          post(
            '/kpis',
            { name: 'Weekly sign-ups', type: 'BSC_KPI', period: 'week' },
            bearer(users.EDITOR.token),
          ),
        ),
      ],
    }),
    deleteKpi: async ({ kpis, users }) => ({
      run: async () => [
        await invoke(deleteKpiHandler, {
          method: 'DELETE',
          path: `/api/kpis/${kpis[0]!.id}`,
          pathParameters: { kpiId: kpis[0]!.id },
          headers: bearer(users.EDITOR.token),
        }),
      ],
    }),
    getKpiProjection: async ({ kpis, users }) => {
      const kpi = kpis[0]!;
      for (let month = 1; month <= 8; month++) {
        const start = `2026-${String(month).padStart(2, '0')}-01`;
        const end = new Date(Date.UTC(2026, month, 0)).toISOString().slice(0, 10);
        await putMeasurement(kpi, start, end, month * 10);
      }
      return {
        run: async () => [
          await invoke(getProjectionHandler, {
            ...get(`/kpis/${kpi.id}/projection`, bearer(users.VIEWER.token)),
            pathParameters: { kpiId: kpi.id },
          }),
        ],
      };
    },
    setKpiTargets: async ({ kpis, users }) => ({
      run: async () => [
        await invoke(setTargetsHandler, {
          method: 'PUT',
          path: `/api/kpis/${kpis[0]!.id}/targets`,
          pathParameters: { kpiId: kpis[0]!.id },
          headers: bearer(users.EDITOR.token),
          body: { targets: [{ periodStart: '2026-01-01', periodEnd: '2026-01-31', value: 100 }] },
        }),
      ],
    }),
    createStrategicCycle: async ({ users }) => ({
      run: async () => [
        await invoke(
          createCycleHandler,
          post(
            '/strategic-cycles',
            { name: 'Strategy 2027', startDate: '2027-01-01', endDate: '2027-12-31' },
            bearer(users.EDITOR.token),
          ),
        ),
      ],
    }),
    getStrategicCycle: async ({ tenant, users }) => {
      const [cycle] = await createTestCycles(tenant.id, ['One']);
      return {
        run: async () => [
          await invoke(getCycleHandler, {
            ...get(`/strategic-cycles/${cycle!.id}`, bearer(users.VIEWER.token)),
            pathParameters: { id: cycle!.id },
          }),
        ],
      };
    },
    updateStrategicCycle: async ({ tenant, users }) => {
      const [cycle] = await createTestCycles(tenant.id, ['One']);
      return {
        run: async () => [
          await invoke(updateCycleHandler, {
            method: 'PATCH',
            path: `/api/strategic-cycles/${cycle!.id}`,
            pathParameters: { id: cycle!.id },
            headers: bearer(users.EDITOR.token),
            body: { status: 'active' },
          }),
        ],
      };
    },
    deleteStrategicCycle: async ({ tenant, users }) => {
      const [cycle] = await createTestCycles(tenant.id, ['One']);
      return {
        run: async () => [
          await invoke(deleteCycleHandler, {
            method: 'DELETE',
            path: `/api/strategic-cycles/${cycle!.id}`,
            pathParameters: { id: cycle!.id },
            headers: bearer(users.EDITOR.token),
          }),
        ],
      };
    },
    listUsers: async ({ users }) => ({
      run: async () => [await invoke(listUsersHandler, get('/users', bearer(users.ADMIN.token)))],
    }),
    listKpiOwners: async ({ users }) => ({
      run: async () => [await invoke(listKpiOwnersHandler, get('/kpi-owners', bearer(users.EDITOR.token)))],
    }),
    inviteUser: async ({ users }) => ({
      run: async () => [
        await invoke(
          inviteUserHandler,
          post(
            '/users',
            { email: `new-${Date.now()}@example.test`, role: 'EDITOR' },
            bearer(users.ADMIN.token),
          ),
        ),
      ],
    }),
    updateUser: async ({ users }) => ({
      run: async () => [
        await invoke(updateUserHandler, {
          method: 'PATCH',
          path: `/api/users/${users.EDITOR.id}`,
          pathParameters: { id: users.EDITOR.id },
          headers: bearer(users.ADMIN.token),
          body: { role: 'VIEWER' },
        }),
      ],
    }),
    resetUserPassword: async ({ users }) => ({
      run: async () => [
        await invoke(resetPasswordHandler, {
          ...post(`/users/${users.EDITOR.id}/password-reset`, {}, bearer(users.ADMIN.token)),
          pathParameters: { id: users.EDITOR.id },
        }),
      ],
    }),
    acceptInvitation: async ({ users }) => {
      const invited = await invoke(
        inviteUserHandler,
        post(
          '/users',
          { email: `invited-${Date.now()}@example.test`, role: 'VIEWER' },
          bearer(users.ADMIN.token),
        ),
      );
      return {
        run: async () => [
          await invoke(
            acceptInvitationHandler,
            post('/auth/accept-invitation', {
              token: invited.body.link.token,
              password: 'a long enough passphrase',
            }),
          ),
        ],
      };
    },
    changePassword: async ({ users }) => ({
      run: async () => [
        await invoke(
          changePasswordHandler,
          post(
            '/auth/change-password',
            { currentPassword: users.EDITOR.password, newPassword: 'another long passphrase' },
            bearer(users.EDITOR.token),
          ),
        ),
      ],
    }),
    updateKpi: async ({ kpis, users }) => ({
      run: async () => [
        await invoke(updateKpiHandler, {
          method: 'PATCH',
          path: `/api/kpis/${kpis[0]!.id}`,
          pathParameters: { kpiId: kpis[0]!.id },
          headers: bearer(users.ADMIN.token),
          body: { direction: 'lower_is_better' },
        }),
      ],
    }),
    createApiKey: async ({ kpis, users }) => ({
      run: async () => [
        await invoke(
          createKeyHandler,
          post('/api-keys', { name: 'scoped', kpiIds: [kpis[0]!.id] }, bearer(users.ADMIN.token)),
        ),
      ],
    }),
    listApiKeys: async ({ tenant, users }) => {
      await createApiKey(db, {
        tenantId: tenant.id,
        name: 'listed',
        createdBy: { type: 'user', userId: users.ADMIN.id },
      });
      return {
        run: async () => [await invoke(listKeysHandler, get('/api-keys', bearer(users.VIEWER.token)))],
      };
    },
    getApiKeyUsage: async ({ tenant, users }) => {
      const { id } = await createApiKey(db, { tenantId: tenant.id, name: 'used' });
      return {
        run: async () => [
          await invoke(getKeyUsageHandler, {
            ...get(`/api-keys/${id}/usage`, bearer(users.VIEWER.token)),
            pathParameters: { id },
          }),
        ],
      };
    },
    revokeApiKey: async ({ tenant, users }) => {
      await subscribe(tenant.id, ['api_key.revoked']);
      const { id } = await createApiKey(db, { tenantId: tenant.id, name: 'revoked' });
      return {
        run: async () => [
          await invoke(revokeKeyHandler, {
            method: 'DELETE',
            path: `/api/api-keys/${id}`,
            pathParameters: { id },
            headers: bearer(users.ADMIN.token),
          }),
        ],
      };
    },
    updateApiKey: async ({ tenant, users, kpis }) => {
      const { id } = await createApiKey(db, {
        tenantId: tenant.id,
        name: 'changed',
        createdBy: { type: 'user', userId: users.ADMIN.id },
      });
      const change = (body: unknown) =>
        invoke(updateKeyHandler, {
          method: 'PATCH',
          path: `/api/api-keys/${id}`,
          resource: '/api/api-keys/{id}',
          pathParameters: { id },
          headers: bearer(users.ADMIN.token),
          body,
        });
      return {
        run: async () => [
          await change({ name: 'renamed', allowedSources: ['203.0.113.7'] }),
          await change({ allowedSources: null }),
          await change({ kpiIds: [kpis[0]!.id] }),
          await change({ kpiIds: null }),
        ],
      };
    },
    rollApiKey: async ({ tenant, users }) => {
      await subscribe(tenant.id, ['api_key.rolled']);
      const { id } = await createApiKey(db, { tenantId: tenant.id, name: 'rolled' });
      return {
        run: async () => [
          await invoke(rollKeyHandler, {
            ...post(`/api-keys/${id}/roll`, {}, bearer(users.ADMIN.token)),
            pathParameters: { id },
          }),
        ],
      };
    },
    pushAuthorizer: async ({ tenant }) => {
      const key = await createRawKey(tenant.id);
      const expired = await createRawKey(tenant.id, new Date(Date.now() - 1000).toISOString());
      const authorize = (apiKey: string) =>
        pushAuthorizerHandler({
          type: 'REQUEST',
          httpMethod: 'POST',
          methodArn: 'arn:aws:execute-api:eu-central-1:1:api/prod/POST/api/integrations/push/measurement',
          headers: { 'x-api-key': apiKey },
        } as never);
      return {
        // An allowed key, and a refused one, which is counted on its usage (shifted into the 2xx range).
        run: async () => [
          { status: (await authorize(key)).context?.status === 'active' ? 200 : 403 },
          { status: (await authorize(expired)).context?.status === 'refused' ? 200 : 500 },
        ],
      };
    },
    pushMeasurement: async ({ tenant, kpis }) => {
      const key = await createRawKey(tenant.id);
      return {
        run: async () => [
          await invoke(
            pushHandler,
            post('/integrations/push/measurement', measurementFor(kpis[0]!), { 'x-api-key': key }),
          ),
        ],
      };
    },
    pushMeasurementsBatch: async ({ tenant, kpis }) => {
      const key = await createRawKey(tenant.id);
      // Two whole periods of the KPI (a month, the default).
      const measurements = [
        ['2026-01-01', '2026-01-31'],
        ['2026-02-01', '2026-02-28'],
      ].map(([periodStart, periodEnd]) => measurementFor(kpis[0]!, { periodStart, periodEnd }));
      return {
        run: async () => [
          await invoke(
            pushBatchHandler,
            post('/integrations/push/measurements/batch', { measurements }, { 'x-api-key': key }),
          ),
        ],
      };
    },
    checkPushKey: async ({ tenant }) => {
      const key = await createRawKey(tenant.id);
      return {
        run: async () => [
          await invoke(checkKeyHandler, {
            method: 'GET',
            path: '/api/integrations/push/key',
            headers: { 'x-api-key': key },
          }),
        ],
      };
    },
    health: async () => ({ run: async () => [await invoke(healthHandler, get('/health', {}))] }),
    githubSecretScanning: async ({ tenant }) => {
      const leaked = await createApiKey(db, { tenantId: tenant.id, name: 'leaked' });
      // A key made by a roll: its revocation also ends the grace period of the key it replaced.
      const rolled = await rollApiKey(db, { tenantId: tenant.id, keyId: leaked.id }, publish);
      // An endpoint for api_key.revoked: the revocation publishes a delivery to it.
      await subscribe(tenant.id, ['api_key.revoked']);
      const body = JSON.stringify(
        [leaked.key, rolled.created.key, generateApiKey()].map((token) => ({
          token,
          type: 'strategy_service_api_key',
          url: 'https://github.com/o/r/blob/s/.env',
        })),
      );
      return {
        run: async () => [
          await invoke(
            githubSecretScanningHandler,
            post('/secret-scanning/github', body, {
              'Content-Type': 'application/json',
              ...signedHeaders(body, inject('secretScanningKey')),
            }),
          ),
        ],
      };
    },
    createWebhook: async ({ users }) => ({
      run: async () => [
        await invoke(
          createWebhookHandler,
          post(
            '/webhooks',
            { url: 'https://hooks.example.com/x', eventTypes: ['kpi.quiet'] },
            bearer(users.ADMIN.token),
          ),
        ),
      ],
    }),
    listAuditEvents: async ({ tenant, users }) => {
      await createApiKey(db, { tenantId: tenant.id, name: 'audited' });
      return {
        run: async () => [
          await invoke(listAuditEventsHandler, get('/audit-events', bearer(users.ADMIN.token))),
          await invoke(listAuditEventsHandler, {
            ...get('/audit-events', bearer(users.ADMIN.token)),
            query: { format: 'ndjson', type: 'api_key.created' },
          }),
        ],
      };
    },
    listWebhooks: async ({ tenant, users }) => {
      await subscribe(tenant.id, ['kpi.quiet']);
      return {
        run: async () => [await invoke(listWebhooksHandler, get('/webhooks', bearer(users.ADMIN.token)))],
      };
    },
    deleteWebhook: async ({ tenant, users }) => {
      const { id } = await subscribe(tenant.id, ['kpi.quiet']);
      return {
        run: async () => [
          await invoke(deleteWebhookHandler, {
            method: 'DELETE',
            path: `/api/webhooks/${id}`,
            pathParameters: { id },
            headers: bearer(users.ADMIN.token),
          }),
        ],
      };
    },
    listWebhookDeliveries: async ({ tenant, users }) => {
      const { id } = await subscribe(tenant.id, ['kpi.quiet']);
      return {
        run: async () => [
          await invoke(listDeliveriesHandler, {
            ...get(`/webhooks/${id}/deliveries`, bearer(users.ADMIN.token)),
            pathParameters: { id },
          }),
        ],
      };
    },
    // An endpoint nobody listens on: the attempt fails at once, and the answer reports it (200).
    testWebhook: async ({ tenant, users }) => {
      const { id } = await subscribe(tenant.id, ['kpi.quiet'], `http://127.0.0.1:${await freePort()}/x`);
      return {
        run: async () => [
          await invoke(testWebhookHandler, {
            ...post(`/webhooks/${id}/test`, undefined, bearer(users.ADMIN.token)),
            pathParameters: { id },
          }),
        ],
      };
    },
    // A daily KPI with nothing for two days and an endpoint for kpi.quiet: one event, one delivery.
    checkAlerts: async ({ tenant, kpis }) => {
      const arrived = new Date(Date.now() - 2 * 86_400_000).toISOString();
      await putMeasurement(kpis[0]!, '2026-11-01', '2026-11-01', 1, {
        receivedAt: arrived,
        updatedAt: arrived,
      });
      await updateKpi(db, tenant.id, kpis[0]!.id, { cadence: 'daily' });
      await subscribe(tenant.id, ['kpi.quiet']);
      return {
        run: async () => {
          const result = await checkAlertsHandler({}, { functionName: 'checkAlerts' } as never);
          return [{ status: result.quietKpis > 0 ? 200 : 500 }];
        },
      };
    },
    createPullIntegration: async ({ kpis, users }) => ({
      run: async () => [
        await invoke(
          createPullHandler,
          post('/integrations/pull', pullDefinition(kpis[0]!.id), bearer(users.ADMIN.token)),
        ),
      ],
    }),
    listPullIntegrations: async ({ tenant, kpis, users }) => {
      await aPull(tenant.id, kpis[0]!.id);
      return {
        run: async () => [
          await invoke(listPullHandler, get('/integrations/pull', bearer(users.VIEWER.token))),
        ],
      };
    },
    getPullIntegration: async ({ tenant, kpis, users }) => {
      const { id } = await aPull(tenant.id, kpis[0]!.id);
      return {
        run: async () => [
          await invoke(getPullHandler, {
            ...get(`/integrations/pull/${id}`, bearer(users.VIEWER.token)),
            pathParameters: { id },
          }),
        ],
      };
    },
    updatePullIntegration: async ({ tenant, kpis, users }) => {
      const { id } = await aPull(tenant.id, kpis[0]!.id);
      return {
        run: async () => [
          await invoke(updatePullHandler, {
            method: 'PATCH',
            path: `/api/integrations/pull/${id}`,
            pathParameters: { id },
            headers: bearer(users.ADMIN.token),
            body: {
              name: 'Renamed',
              measurements: [{ kpiId: kpis[0]!.id, kpiType: 'BSC_KPI', actual: 'v' }],
            },
          }),
        ],
      };
    },
    deletePullIntegration: async ({ tenant, kpis, users }) => {
      const { id } = await aPull(tenant.id, kpis[0]!.id);
      return {
        run: async () => [
          await invoke(deletePullHandler, {
            method: 'DELETE',
            path: `/api/integrations/pull/${id}`,
            pathParameters: { id },
            headers: bearer(users.ADMIN.token),
          }),
        ],
      };
    },
    previewPullIntegration: async ({ tenant, kpis, users }) => {
      const { id } = await aPull(tenant.id, kpis[0]!.id);
      return {
        run: async () => [
          await invoke(previewPullHandler, {
            ...post(`/integrations/pull/${id}/preview`, undefined, bearer(users.ADMIN.token)),
            pathParameters: { id },
          }),
        ],
      };
    },
    // A definition not saved, fetched from a source that answers: reads only.
    previewPullDefinition: async ({ kpis, users }) => {
      const body = pullDefinition(kpis[0]!.id, await sourceUrl());
      return {
        run: async () => [
          await invoke(
            previewPullDefinitionHandler,
            post('/integrations/pull/preview', body, bearer(users.ADMIN.token)),
          ),
        ],
      };
    },
    // A run that stores.
    runPullIntegration: async ({ tenant, kpis, users }) => {
      const { id } = await aPull(tenant.id, kpis[0]!.id);
      return {
        run: async () => [
          await invoke(runPullHandler, {
            ...post(`/integrations/pull/${id}/run`, undefined, bearer(users.ADMIN.token)),
            pathParameters: { id },
          }),
        ],
      };
    },
    listPullIntegrationRuns: async ({ tenant, kpis, users }) => {
      const { id } = await aPull(tenant.id, kpis[0]!.id);
      return {
        run: async () => [
          await invoke(listPullRunsHandler, {
            ...get(`/integrations/pull/${id}/runs`, bearer(users.VIEWER.token)),
            pathParameters: { id },
          }),
        ],
      };
    },
    // Claims the due slots (this tenant's among them) and queues them (on the local stage in the table).
    schedulePullIntegrations: async ({ tenant, kpis }) => {
      await aPull(tenant.id, kpis[0]!.id);
      return {
        run: async () => {
          const result = await schedulePullsHandler({}, {
            functionName: 'schedulePullIntegrations',
          } as never);
          return [{ status: result.claimed > 0 ? 200 : 500 }];
        },
      };
    },
    // One claimed slot run by the worker, and an integration.disabled published to an endpoint.
    runPullIntegrations: async ({ tenant, kpis }) => {
      await subscribe(tenant.id, ['integration.disabled']);
      const { id } = await aPull(tenant.id, kpis[0]!.id);
      const queue = pullLocalQueue(db);
      await schedulePullsHandler({}, { functionName: 'schedulePullIntegrations' } as never);
      const message = (await queue.receive()).find((m) => m.body.includes(id))!;
      return {
        run: async () => {
          const { batchItemFailures } = await runPullsHandler(
            {
              Records: [
                { messageId: 'm1', receiptHandle: message.receipt, body: message.body, attributes: {} },
              ],
            } as never,
            {} as never,
          );
          return [{ status: batchItemFailures.length === 0 ? 200 : 500 }];
        },
      };
    },
    // A failed attempt, scheduled again (the local queue's visibility; on AWS ChangeMessageVisibility).
    deliverWebhooks: async ({ tenant }) => {
      await subscribe(tenant.id, ['kpi.quiet'], `http://127.0.0.1:${await freePort()}/x`);
      await publish({
        type: 'kpi.quiet',
        tenantId: tenant.id,
        occurredAt: new Date().toISOString(),
        data: {},
      });
      const message = (await webhookLocalQueue(db).receive()).find((m) => m.body.includes(tenant.id))!;
      return {
        run: async () => {
          const { batchItemFailures } = await deliverWebhooksHandler(
            {
              Records: [
                {
                  messageId: 'm1',
                  receiptHandle: message.receipt,
                  body: message.body,
                  attributes: { ApproximateReceiveCount: '1' },
                },
              ],
            } as never,
            {} as never,
          );
          return [{ status: batchItemFailures.length === 1 ? 200 : 500 }];
        },
      };
    },
  };

  it('allows every call a run of each function makes: its action, on the table or the index, for its partition keys', async () => {
    const functions = functionsOf(prod);
    const withData = Object.entries(functions)
      .filter(([, { fn }]) => actionsOf(statementsOf(roleOf(prod, fn).role), 'dynamodb:').length > 0)
      .map(([name]) => name);
    expect(Object.keys(scenarios).sort()).toEqual(withData.sort());
    for (const [name, scenario] of Object.entries(scenarios)) {
      const tenant = await createTestTenant({
        plan: 'business',
        kpiTypes: ['BSC_KPI'],
        features: ['kpi_push_measurement', 'kpi_api_integration'],
      });
      const { run } = await scenario(tenant);
      const calls: Call[] = [];
      const stop = recordCalls(db.client, calls);
      let answers: { status: number }[];
      try {
        answers = await run();
      } finally {
        stop();
      }
      // The run did what the function is for (the login's refusals are shifted into the 2xx range).
      for (const { status } of answers) expect(status, name).toBeLessThan(300);
      expect(calls.length, name).toBeGreaterThan(0);
      const statements = statementsOf(roleOf(prod, functions[name]!.fn).role);
      for (const access of calls.flatMap(accessesOf)) {
        expect(allowedBy(statements, access), `${name}: ${JSON.stringify(access)}`).toBe(true);
      }
    }
  }, 300_000);
});
