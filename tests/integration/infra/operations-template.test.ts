import { execFileSync, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CloudFormationResource,
  type CloudFormationTemplate,
  packageTemplate,
  resourcesOfType,
} from '../../support/serverless-template';

/**
 * Issue 14: what `serverless package` puts into the template for operating the service: tracing, the
 * access log, alarms, one least-privilege role per function, the JWT key as an SSM SecureString read at
 * run time, CORS, deletion protection and the stack outputs. Runs `cfn-lint` on the template when it is
 * installed (it is a Python tool, not on every machine; README, Tests).
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
    [...JWT_FUNCTIONS, ...PUSH_FUNCTIONS, ...PAGE_FUNCTIONS, ...PUBLIC_FUNCTIONS].map((name) => [name, '']),
  );
  // One after the other: two concurrent packages of one checkout disturb each other.
  prod = await packageTemplate('prod');
  withOrigins = await packageTemplate('staging', {
    corsOrigins: ORIGINS.join(','),
    alarmTopicArn: 'arn:aws:sns:eu-central-1:123456789012:ops',
    manageApiGatewayAccount: 'false',
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
}, 240_000);

const JWT_FUNCTIONS = [
  'login',
  'refreshToken',
  'listStrategicCycles',
  'listKpis',
  'getKpi',
  'listMeasurements',
  'createApiKey',
  'listApiKeys',
  'revokeApiKey',
  'rollApiKey',
];
const PUSH_FUNCTIONS = ['pushMeasurement', 'pushMeasurementsBatch', 'pushAuthorizer', 'checkPushKey'];
const PUSH_HANDLERS = ['pushMeasurement', 'pushMeasurementsBatch'];
const PAGE_FUNCTIONS = ['apiKeysPage', 'kpisPage'];
/** Issue 12: without authentication, and without the JWT key: health, the document, the reference page. */
const PUBLIC_FUNCTIONS = ['health', 'openApiDocument', 'apiDocs'];

/** The DynamoDB actions each function needs, and whether it queries the index (least privilege). */
const DYNAMODB: Record<string, { actions: string[]; index: boolean }> = {
  login: { actions: ['BatchGetItem', 'DeleteItem', 'GetItem', 'UpdateItem'], index: false },
  refreshToken: { actions: ['BatchGetItem'], index: false },
  listStrategicCycles: { actions: ['Query'], index: false },
  listKpis: { actions: ['Query'], index: true },
  // Issue 15: the KPI and its measurements in one Query; a later page also Gets the KPI.
  getKpi: { actions: ['GetItem', 'Query'], index: false },
  listMeasurements: { actions: ['GetItem', 'Query'], index: false },
  createApiKey: { actions: ['BatchGetItem', 'PutItem', 'Query'], index: true },
  listApiKeys: { actions: ['BatchGetItem', 'Query'], index: true },
  revokeApiKey: { actions: ['Query', 'UpdateItem'], index: true },
  // Issue 13: the old key (Query, GetItem after a lost race), tenant and slots (BatchGet), one transaction.
  rollApiKey: { actions: ['BatchGetItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'], index: true },
  pushMeasurement: { actions: ['BatchGetItem', 'BatchWriteItem', 'GetItem', 'UpdateItem'], index: false },
  pushMeasurementsBatch: {
    actions: ['BatchGetItem', 'BatchWriteItem', 'GetItem', 'UpdateItem'],
    index: false,
  },
  apiKeysPage: { actions: [], index: false },
  kpisPage: { actions: [], index: false },
  // Issue 10's authorizer reads the key and the tenant, nothing else.
  pushAuthorizer: { actions: ['GetItem'], index: false },
  // Issue 12's key check reads the key, its usage item and the tenant.
  checkPushKey: { actions: ['GetItem'], index: false },
  // Issue 12: one read of the health probe item; the document and the reference page are static.
  health: { actions: ['GetItem'], index: false },
  openApiDocument: { actions: [], index: false },
  apiDocs: { actions: [], index: false },
};

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
  statements
    .flatMap((s) => [s.Action].flat() as string[])
    .filter((a) => a.startsWith(prefix))
    .map((a) => a.slice(prefix.length))
    .sort();

const TABLE_ARN = { 'Fn::GetAtt': ['Table', 'Arn'] };
const INDEX_ARN = { 'Fn::Join': ['/', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, 'index', 'gsi1']] };
const parameterArn = (stage: string) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':ssm:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:parameter/strategy-service/${stage}/jwt-secret`,
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

  it('has Errors and Throttles alarms for every function, the authorizer alarming within a minute', () => {
    const all = alarms(prod);
    for (const [name, { id }] of Object.entries(functionsOf(prod))) {
      for (const metric of ['Errors', 'Throttles']) {
        const alarm = all[`${id}${metric}Alarm`];
        expect(alarm, `${id} ${metric}`).toMatchObject({
          Namespace: 'AWS/Lambda',
          MetricName: metric,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: id } }],
          Statistic: 'Sum',
          Threshold: 1,
          Period: name === 'pushAuthorizer' && metric === 'Errors' ? 60 : 300,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
        });
      }
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

  it('alarms on any read or write throttle of the table and of its index', () => {
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
  it('gives every function a role of its own', () => {
    const roles = Object.values(functionsOf(prod)).map(({ fn }) => roleOf(prod, fn).roleId);
    expect(new Set(roles).size).toBe(roles.length);
    expect(roles).not.toContain('IamRoleLambdaExecution');
  });

  it('allows each function exactly the DynamoDB actions it uses, on the table, and the index only where it queries it', () => {
    const functions = functionsOf(prod);
    expect(Object.keys(functions).sort()).toEqual(Object.keys(DYNAMODB).sort());
    for (const [name, expected] of Object.entries(DYNAMODB)) {
      const statements = statementsOf(roleOf(prod, functions[name]!.fn).role);
      expect(actionsOf(statements, 'dynamodb:'), name).toEqual(expected.actions);
      for (const statement of statements.filter((s) => JSON.stringify(s.Action).includes('dynamodb:'))) {
        expect(statement.Resource, name).toEqual(expected.index ? [TABLE_ARN, INDEX_ARN] : [TABLE_ARN]);
      }
      // Nothing but logs, X-Ray, DynamoDB and (JWT functions) the key.
      const services = new Set(
        statements.flatMap((s) => [s.Action].flat().map((a: string) => a.split(':')[0])),
      );
      for (const service of services)
        expect(['logs', 'xray', 'dynamodb', 'ssm', 'kms'], name).toContain(service);
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
      expect(granted, name).toEqual(expect.arrayContaining([...used]));
    }
  });

  it('lets only the JWT functions read the key parameter, and decrypt it only through SSM for that parameter', () => {
    const functions = functionsOf(prod);
    for (const name of JWT_FUNCTIONS) {
      const statements = statementsOf(roleOf(prod, functions[name]!.fn).role);
      const read = statements.find((s) => JSON.stringify(s.Action).includes('ssm:'));
      expect(read, name).toMatchObject({ Action: ['ssm:GetParameter'], Resource: parameterArn('prod') });
      const decrypt = statements.find((s) => JSON.stringify(s.Action).includes('kms:'));
      expect(decrypt.Action, name).toEqual(['kms:Decrypt']);
      expect(decrypt.Condition.StringEquals, name).toEqual({
        'kms:ViaService': { 'Fn::Join': ['', ['ssm.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
        'kms:EncryptionContext:PARAMETER_ARN': parameterArn('prod'),
      });
    }
    for (const name of [...PUSH_FUNCTIONS, ...PAGE_FUNCTIONS, ...PUBLIC_FUNCTIONS]) {
      const statements = statementsOf(roleOf(prod, functions[name]!.fn).role);
      expect(actionsOf(statements, 'ssm:'), name).toEqual([]);
      expect(actionsOf(statements, 'kms:'), name).toEqual([]);
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
      expect(bundles[name], name).toContain('JwtError');
    }
    for (const name of [...PUSH_FUNCTIONS, ...PAGE_FUNCTIONS, ...PUBLIC_FUNCTIONS]) {
      expect(bundles[name], name).not.toContain('@aws-sdk/client-ssm');
      expect(bundles[name], name).not.toContain('JwtError');
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
        'kpis',
        'login',
        'measurements',
        'refresh-token',
        'roll',
        'strategic-cycles',
        '{id}',
        '{kpiId}',
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
        expect(ref in template.Resources || PSEUDO.includes(ref), ref).toBe(true);
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
