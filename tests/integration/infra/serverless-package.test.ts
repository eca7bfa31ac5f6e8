import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import tableDefinition from '../../../infra/table.json';
import { isPageRoute } from '../../../lib/http/route';
import { loadRouteModules } from '../../../scripts/routes';
import { committedDocument } from '../../support/openapi';
import {
  type CloudFormationTemplate,
  resourcesOfType as ofType,
  packageTemplate,
  removePackages,
} from '../../support/serverless-template';

/**
 * `serverless package` must work offline and without AWS credentials, and its CloudFormation
 * template is what a deploy would create: this reads it back.
 */
let template: CloudFormationTemplate;

const resourcesOfType = (type: string) => ofType(template, type);

beforeAll(async () => {
  template = await packageTemplate('prod');
}, 300_000);
afterAll(removePackages);

describe('serverless package (CloudFormation template)', () => {
  it("answers an unknown route or method with a 404 problem document (API Gateway's own answers)", () => {
    const byType = Object.fromEntries(
      resourcesOfType('AWS::ApiGateway::GatewayResponse').map(([, r]) => [
        r.Properties.ResponseType,
        r.Properties,
      ]),
    );
    for (const type of ['MISSING_AUTHENTICATION_TOKEN', 'RESOURCE_NOT_FOUND']) {
      expect(byType[type], type).toMatchObject({ StatusCode: '404' });
      expect(byType[type].ResponseParameters['gatewayresponse.header.Content-Type']).toBe(
        "'application/problem+json'",
      );
      expect(JSON.parse(byType[type].ResponseTemplates['application/json'])).toMatchObject({
        type: 'https://strategy-service.example.com/problems/not-found',
        status: 404,
      });
    }
  });

  it('leaves nothing in the system temp folder: the per-function folders of its zips go to a folder of its own', () => {
    // serverless-esbuild names them <function>-<pid>-<time>-<random> and never deletes them.
    const ofThisPackage = new RegExp(`^[A-Za-z]+-${template.packagePid}-\\d+-[0-9a-f]{8}$`);
    const own = readdirSync(join(dirname(template.packageDir!), 'tmp')).filter((name) =>
      ofThisPackage.test(name),
    );
    expect(own.length).toBeGreaterThanOrEqual(resourcesOfType('AWS::Lambda::Function').length);
    expect(readdirSync(tmpdir()).filter((name) => ofThisPackage.test(name))).toEqual([]);
  });

  it('has one Lambda per function file, on nodejs22.x, with the JWT key parameter name (never the key)', () => {
    const functions = resourcesOfType('AWS::Lambda::Function');
    const handlers = functions.map(([, fn]) => fn.Properties.Handler).sort();
    expect(handlers).toEqual(
      expect.arrayContaining([
        'functions/get-kpi.handler',
        'functions/kpis-page.handler',
        'functions/list-kpis.handler',
        'functions/list-measurements.handler',
        'functions/list-strategic-cycles.handler',
        'functions/login.handler',
        'functions/refresh-token.handler',
      ]),
    );
    for (const [, fn] of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Environment.Variables.JWT_SECRET).toBeUndefined();
      expect(fn.Properties.Environment.Variables.JWT_SECRET_PARAMETER).toBe(
        '/strategy-service/prod/jwt-secret',
      );
      expect(fn.Properties.Environment.Variables.TABLE_NAME).toBe('strategy-service-prod');
    }
  });

  it('routes every path under the api/ prefix of a REST API', () => {
    const paths = resourcesOfType('AWS::ApiGateway::Resource').map(([, r]) => r.Properties.PathPart);
    expect(paths).toEqual(
      expect.arrayContaining(['api', 'auth', 'login', 'refresh-token', 'strategic-cycles', 'kpis']),
    );
    expect(resourcesOfType('AWS::ApiGateway::RestApi')).toHaveLength(1);
  });

  it('routes exactly the operations of openapi.json under /api, besides the pages', () => {
    const resources = Object.fromEntries(resourcesOfType('AWS::ApiGateway::Resource'));
    const pathOf = (id: { Ref?: string }): string => {
      const resource = id.Ref ? resources[id.Ref] : undefined;
      return resource ? `${pathOf(resource.Properties.ParentId)}/${resource.Properties.PathPart}` : '';
    };
    const routed = resourcesOfType('AWS::ApiGateway::Method')
      .map(([, method]) => `${method.Properties.HttpMethod} ${pathOf(method.Properties.ResourceId)}`)
      .filter((route) => !route.startsWith('OPTIONS '));
    // Pages are HTML, not API operations: everything outside /api, the API reference itself and the
    // problem types' pages.
    const pages = ['GET /api/docs', 'GET /api/docs/{asset}', 'GET /api/problems', 'GET /api/problems/{slug}'];
    const api = routed.filter((route) => route.split(' ')[1]?.startsWith('/api/') && !pages.includes(route));
    const documented = Object.entries<Record<string, unknown>>(committedDocument().paths).flatMap(
      ([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} /api${path}`),
    );
    expect(api.sort()).toEqual(documented.sort());
    expect(routed).toEqual(expect.arrayContaining(pages));
  });

  it('routes each route module to its own function, with its method, path and authorizer, and nothing else', async () => {
    const resources = Object.fromEntries(resourcesOfType('AWS::ApiGateway::Resource'));
    const pathOf = (id: { Ref?: string }): string => {
      const resource = id.Ref ? resources[id.Ref] : undefined;
      return resource ? `${pathOf(resource.Properties.ParentId)}/${resource.Properties.PathPart}` : '';
    };
    const functions = Object.fromEntries(resourcesOfType('AWS::Lambda::Function'));
    const handlerOf = (uri: unknown): string => {
      const logicalId = JSON.stringify(uri).match(/"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]/)?.[1] ?? '';
      return functions[logicalId]?.Properties.Handler;
    };
    const routed = resourcesOfType('AWS::ApiGateway::Method')
      .filter(([, method]) => method.Properties.HttpMethod !== 'OPTIONS')
      .map(
        ([, method]) =>
          `${method.Properties.HttpMethod} ${pathOf(method.Properties.ResourceId)} → ${handlerOf(method.Properties.Integration.Uri)} (${method.Properties.AuthorizationType})`,
      );
    const modules = await loadRouteModules();
    const declared = modules.flatMap(({ name, route }) => {
      if (!route) return [];
      const handler = `functions/${name}.handler`;
      if (isPageRoute(route)) return route.paths.map((path) => `GET ${path} → ${handler} (NONE)`);
      const authorization = route.auth === 'apiKey' ? 'CUSTOM' : 'NONE';
      return [`${route.method.toUpperCase()} /api${route.path} → ${handler} (${authorization})`];
    });
    expect(routed.sort()).toEqual(declared.sort());
    // A function without a route is the push routes' authorizer, which every push route uses, a
    // queue's worker, which its event source mapping runs, or a scheduled job, which a rule runs.
    const authorizers = resourcesOfType('AWS::ApiGateway::Authorizer').map(([, a]) =>
      handlerOf(a.Properties.AuthorizerUri),
    );
    const workers = resourcesOfType('AWS::Lambda::EventSourceMapping').map(([, m]) =>
      handlerOf(m.Properties.FunctionName),
    );
    const scheduled = resourcesOfType('AWS::Events::Rule').flatMap(([, rule]) =>
      rule.Properties.Targets.map((target: any) => handlerOf(target.Arn)),
    );
    const routeless = modules.filter(({ route }) => !route).map(({ name }) => `functions/${name}.handler`);
    expect(routeless.sort()).toEqual([...authorizers, ...workers, ...scheduled].sort());
    expect(workers.sort()).toEqual([
      'functions/deliver-webhooks.handler',
      'functions/run-pull-integrations.handler',
    ]);
    expect(scheduled.sort()).toEqual([
      'functions/check-alerts.handler',
      'functions/schedule-pull-integrations.handler',
    ]);
    expect(
      Object.values(functions)
        .map((fn) => fn.Properties.Handler)
        .sort(),
    ).toEqual(modules.map(({ name }) => `functions/${name}.handler`).sort());
  });

  it('packages every function on its own, so no artifact carries another function’s code', () => {
    const artifacts = resourcesOfType('AWS::Lambda::Function').map(
      ([, fn]) => fn.Properties.Code.S3Key as string,
    );
    expect(new Set(artifacts).size).toBe(artifacts.length);
    expect(artifacts.some((key) => key.endsWith('/apiDocs.zip'))).toBe(true);
  });

  it('zips each function with its bundle and a source map without the sources, which the runtime never reads', async () => {
    // docs/performance.md, "Cold starts": the flag cost 9-15 % of each load; `npm run -s stack` reads the map.
    const functions = resourcesOfType('AWS::Lambda::Function');
    for (const [, fn] of functions) {
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS ?? '').not.toContain('--enable-source-maps');
      const file = fn.Properties.Handler.replace(/\.handler$/, '.js');
      const zipName = /([\w-]+\.zip)/.exec(JSON.stringify(fn.Properties.Code.S3Key))![1]!;
      const zip = await JSZip.loadAsync(readFileSync(join(template.packageDir!, zipName)));
      const names = Object.values(zip.files)
        .filter((entry) => !entry.dir)
        .map((entry) => entry.name);
      expect(names.sort(), zipName).toEqual([file, `${file}.map`]);
      expect(await zip.file(file)!.async('string')).toMatch(/\/\/# sourceMappingURL=[\w-]+\.js\.map\s*$/);
      const map = JSON.parse(await zip.file(`${file}.map`)!.async('string'));
      expect(map.mappings.length, zipName).toBeGreaterThan(0);
      expect(map.sourcesContent, zipName).toBeUndefined();
    }
  });

  it('creates the table from infra/table.json: keys, GSI, TTL, on-demand', () => {
    const table = resourcesOfType('AWS::DynamoDB::Table')[0]![1];
    expect(table.Properties.TableName).toBe('strategy-service-prod');
    expect(table.Properties.KeySchema).toEqual(tableDefinition.KeySchema);
    expect(table.Properties.GlobalSecondaryIndexes).toEqual(tableDefinition.GlobalSecondaryIndexes);
    expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
  });

  it('grants DynamoDB item actions on this table and its indexes only (no Scan, no wildcard)', () => {
    // Per function: tests/integration/infra/operations-template.test.ts.
    const statements = resourcesOfType('AWS::IAM::Role').flatMap(([, role]) =>
      (role.Properties.Policies ?? []).flatMap((policy: any) => policy.PolicyDocument.Statement),
    );
    const dynamo = statements.filter((s: any) =>
      [s.Action].flat().some((a: string) => a.startsWith('dynamodb:')),
    );
    expect(dynamo.length).toBeGreaterThan(0);
    for (const statement of dynamo) {
      expect(statement.Action).not.toContain('dynamodb:*');
      expect(statement.Action).not.toContain('dynamodb:Scan');
      expect(JSON.stringify(statement.Resource)).not.toContain('"*"');
      for (const resource of statement.Resource) {
        expect([
          { 'Fn::GetAtt': ['Table', 'Arn'] },
          { 'Fn::Join': ['/', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, 'index', 'gsi1']] },
          { 'Fn::Join': ['/', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, 'index', 'gsi2']] },
        ]).toContainEqual(resource);
      }
    }
  });

  it("gives the operator CLI this table and this API's tenant keys and plans only", () => {
    const [, policy] = resourcesOfType('AWS::IAM::ManagedPolicy').find(([id]) => id === 'OperatorPolicy')!;
    const statements: any[] = policy.Properties.PolicyDocument.Statement;
    const text = JSON.stringify(statements);
    expect(text).not.toContain('"*"');
    expect(text).not.toMatch(/"(dynamodb|apigateway):\*"/);
    const bySid = Object.fromEntries(statements.map((statement) => [statement.Sid, statement]));
    expect(bySid.TableItems.Resource).toEqual([
      { 'Fn::GetAtt': ['Table', 'Arn'] },
      { 'Fn::Join': ['/', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, 'index', 'gsi1']] },
    ]);
    expect(bySid.CreateTenantKeys.Condition).toEqual({
      StringEquals: { 'aws:RequestTag/service': 'strategy-service', 'aws:RequestTag/stage': 'prod' },
    });
    const plans = bySid.MoveTenantKeysBetweenThisStagesPlans.Resource.map(
      (r: { 'Fn::Sub': string }) => r['Fn::Sub'],
    );
    expect(plans).toEqual(
      ['Free', 'Business', 'Enterprise'].map(
        (tier) =>
          `arn:\${AWS::Partition}:apigateway:\${AWS::Region}::/usageplans/\${ApiGatewayUsagePlan${tier}}/keys*`,
      ),
    );
    expect(template.Outputs).toHaveProperty('OperatorPolicyArn');
  });

  it('the Lambda functions may not touch API Gateway: only the operator manages usage plan keys', () => {
    const role = resourcesOfType('AWS::IAM::Role')[0]![1];
    expect(JSON.stringify(role.Properties.Policies)).not.toContain('apigateway:');
  });
});
