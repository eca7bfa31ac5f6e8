import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lib/config';
import {
  type CloudFormationResource,
  type CloudFormationTemplate,
  packageTemplate,
  removePackages,
  resourcesOfType,
} from '../../support/serverless-template';

/**
 * Edge throttling: one API Gateway usage plan per tier, applied per tenant through the
 * push authorizer's usage identifier, and a stage-wide default method throttle, read back from the
 * template `serverless package --stage prod` produces.
 */
let template: CloudFormationTemplate;
beforeAll(async () => {
  template = await packageTemplate('prod');
}, 120_000);
afterAll(removePackages);

/** The service's exact per-minute limits per API key, as lib/config.ts defaults them. */
const serviceLimits = (() => {
  const config = parseConfig({ TABLE_NAME: 'unused', JWT_SECRET: 'x'.repeat(32) });
  return {
    free: config.RATE_LIMIT_FREE,
    business: config.RATE_LIMIT_BUSINESS,
    enterprise: config.RATE_LIMIT_ENTERPRISE,
  };
})();

const STAGE_THROTTLE = { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 };

const plans = (): Record<string, CloudFormationResource> =>
  Object.fromEntries(
    resourcesOfType(template, 'AWS::ApiGateway::UsagePlan').map(([, plan]) => [
      plan.Properties.UsagePlanName,
      plan,
    ]),
  );

const stage = () => {
  const stages = resourcesOfType(template, 'AWS::ApiGateway::Stage');
  expect(stages).toHaveLength(1);
  return stages[0]!;
};

const defaultMethodSetting = () =>
  stage()[1].Properties.MethodSettings.find(
    (setting: { ResourcePath: string; HttpMethod: string }) =>
      setting.ResourcePath === '/*' && setting.HttpMethod === '*',
  );

describe('usage plans and stage throttle: happy path', () => {
  it('has one usage plan per tier with the documented token bucket', () => {
    const byName = plans();
    expect(Object.keys(byName).sort()).toEqual([
      'strategy-service-business-prod',
      'strategy-service-enterprise-prod',
      'strategy-service-free-prod',
    ]);
    expect(byName['strategy-service-free-prod']!.Properties.Throttle).toEqual({
      RateLimit: 1,
      BurstLimit: 10,
    });
    expect(byName['strategy-service-business-prod']!.Properties.Throttle).toEqual({
      RateLimit: 5,
      BurstLimit: 50,
    });
    expect(byName['strategy-service-enterprise-prod']!.Properties.Throttle).toEqual({
      RateLimit: 50,
      BurstLimit: 200,
    });
  });

  it("sustains exactly each tier's per-minute service limit (rate x 60), bursting above one second's worth", () => {
    for (const [tier, perMinute] of Object.entries(serviceLimits)) {
      const { RateLimit, BurstLimit } = plans()[`strategy-service-${tier}-prod`]!.Properties.Throttle;
      expect(RateLimit * 60, tier).toBe(perMinute);
      expect(BurstLimit, tier).toBeGreaterThan(RateLimit);
    }
  });

  it('attaches every plan to the prod stage of this REST API, created before the plans', () => {
    const [stageId] = stage();
    for (const plan of Object.values(plans())) {
      expect(plan.Properties.ApiStages).toEqual([{ ApiId: { Ref: 'ApiGatewayRestApi' }, Stage: 'prod' }]);
      expect([plan.DependsOn].flat()).toContain(stageId);
    }
  });

  it('sets a stage-wide default method throttle on /*/* (MethodSettings)', () => {
    const [, prod] = stage();
    expect(prod.Properties.StageName).toBe('prod');
    expect(prod.Properties.RestApiId).toEqual({ Ref: 'ApiGatewayRestApi' });
    expect(defaultMethodSetting()).toMatchObject(STAGE_THROTTLE);
  });

  it("points the stage at this package's deployment, which no longer creates a stage of its own", () => {
    const deployments = resourcesOfType(template, 'AWS::ApiGateway::Deployment');
    expect(deployments).toHaveLength(1);
    const [deploymentId, deployment] = deployments[0]!;
    expect(stage()[1].Properties.DeploymentId).toEqual({ Ref: deploymentId });
    // Both creating the same stage name would fail the deploy with "Stage already exists".
    expect(deployment.Properties.StageName).toBeUndefined();
  });
});

describe('usage plans and stage throttle: errors (the stage plugin refuses templates it cannot wire)', () => {
  const ServerlessApiStage = createRequire(import.meta.url)('../../../scripts/serverless-api-stage.cjs');
  const fakeServerless = (resources: Record<string, unknown>) => ({
    service: { provider: { compiledCloudFormationTemplate: { Resources: resources } } },
    classes: { Error },
  });
  const deployment = (stageName: string) => ({
    Type: 'AWS::ApiGateway::Deployment',
    Properties: { RestApiId: { Ref: 'ApiGatewayRestApi' }, StageName: stageName },
  });
  const stageResource = (stageName: string) => ({
    Type: 'AWS::ApiGateway::Stage',
    Properties: { RestApiId: { Ref: 'ApiGatewayRestApi' }, StageName: stageName },
  });

  it('leaves a template without a declared stage as the framework built it', () => {
    const resources = { ApiGatewayDeployment1: deployment('prod') };
    new ServerlessApiStage(fakeServerless(resources)).wireStage();
    expect(resources.ApiGatewayDeployment1.Properties.StageName).toBe('prod');
  });

  it('fails when the declared stage and the deployment name different stages', () => {
    const resources = { ApiGatewayDeployment1: deployment('prod'), ApiGatewayStage: stageResource('dev') };
    expect(() => new ServerlessApiStage(fakeServerless(resources)).wireStage()).toThrow(/named "dev"/);
  });

  it('fails unless there is exactly one deployment', () => {
    const resources = {
      ApiGatewayDeployment1: deployment('prod'),
      ApiGatewayDeployment2: deployment('prod'),
      ApiGatewayStage: stageResource('prod'),
    };
    expect(() => new ServerlessApiStage(fakeServerless(resources)).wireStage()).toThrow(/found 2/);
  });
});

describe('usage plans and stage throttle: security', () => {
  it('throttles every method at the stage default: no method setting raises a limit above it', () => {
    for (const setting of stage()[1].Properties.MethodSettings) {
      if (setting.ThrottlingRateLimit !== undefined) {
        expect(setting.ThrottlingRateLimit).toBeLessThanOrEqual(STAGE_THROTTLE.ThrottlingRateLimit);
      }
      if (setting.ThrottlingBurstLimit !== undefined) {
        expect(setting.ThrottlingBurstLimit).toBeLessThanOrEqual(STAGE_THROTTLE.ThrottlingBurstLimit);
      }
    }
  });

  it('keeps the stage default above every plan, so the plans (not the stage) shape keyed callers', () => {
    for (const plan of Object.values(plans())) {
      expect(plan.Properties.Throttle.RateLimit).toBeLessThanOrEqual(STAGE_THROTTLE.ThrottlingRateLimit);
      expect(plan.Properties.Throttle.BurstLimit).toBeLessThanOrEqual(STAGE_THROTTLE.ThrottlingBurstLimit);
    }
  });

  it('takes the usage plan key from the authorizer, never from a header of the caller', () => {
    const [, api] = resourcesOfType(template, 'AWS::ApiGateway::RestApi')[0]!;
    expect(api.Properties.ApiKeySourceType).toBe('AUTHORIZER');
    // The tenants' API Gateway keys are made by the operator CLI, never in the template.
    expect(resourcesOfType(template, 'AWS::ApiGateway::ApiKey')).toEqual([]);
  });

  it('runs the push authorizer on the push routes (and the key check) and requires a plan key there only', () => {
    const [authorizerId, authorizer] = resourcesOfType(template, 'AWS::ApiGateway::Authorizer')[0]!;
    expect(authorizer.Properties).toMatchObject({
      Type: 'REQUEST',
      // The key and the caller's address: a cached Allow is reused only for the same key from the same
      // address (docs/architecture.md, "Source allowlists: where the address is checked").
      IdentitySource: 'method.request.header.x-api-key, context.identity.sourceIp',
    });
    expect(authorizer.Properties.AuthorizerResultTtlInSeconds).toBeGreaterThan(0);
    expect(authorizer.Properties.AuthorizerResultTtlInSeconds).toBeLessThanOrEqual(300);
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain('PushAuthorizerLambdaFunction');
    const methods = resourcesOfType(template, 'AWS::ApiGateway::Method').filter(
      ([, method]) => method.Properties.HttpMethod !== 'OPTIONS',
    );
    const pushMethods = methods.filter(([id]) => id.startsWith('ApiGatewayMethodApiIntegrationsPush'));
    expect(pushMethods.map(([id]) => id).sort()).toEqual([
      'ApiGatewayMethodApiIntegrationsPushKeyGet',
      'ApiGatewayMethodApiIntegrationsPushMeasurementPost',
      'ApiGatewayMethodApiIntegrationsPushMeasurementsBatchPost',
    ]);
    for (const [, method] of pushMethods) {
      expect(method.Properties).toMatchObject({
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
        ApiKeyRequired: true,
      });
    }
    for (const [id, method] of methods) {
      if (pushMethods.some(([pushId]) => pushId === id)) continue;
      expect(method.Properties.ApiKeyRequired ?? false, id).toBe(false);
    }
  });

  it('gives every tier a monthly quota, larger for larger tiers', () => {
    const quota = (tier: string) => plans()[`strategy-service-${tier}-prod`]!.Properties.Quota;
    expect(quota('free')).toEqual({ Limit: 150_000, Period: 'MONTH' });
    expect(quota('business')).toEqual({ Limit: 250_000, Period: 'MONTH' });
    expect(quota('enterprise')).toEqual({ Limit: 5_000_000, Period: 'MONTH' });
  });
});
