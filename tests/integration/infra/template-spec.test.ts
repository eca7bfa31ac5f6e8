import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CloudFormationTemplate,
  packageTemplate,
  removePackages,
} from '../../support/serverless-template';
import { LIMITS, LONGEST_REGION, templateProblems } from '../../support/template-spec';

/**
 * The packaged prod template, checked against AWS's own specifications and quotas
 * (tests/support/template-spec.ts), and the checker itself, on templates broken on purpose: each
 * mistake names its resource and property.
 */
let prod: CloudFormationTemplate;

beforeAll(async () => {
  prod = await packageTemplate('prod');
}, 300_000);
afterAll(removePackages);

const copy = () => structuredClone({ ...prod, packageDir: undefined, packagePid: undefined });
const idOf = (type: string, template = prod) =>
  Object.entries(template.Resources).find(([, r]) => r.Type === type)![0];

describe('the prod template against AWS specifications', () => {
  it('has no problem: types, properties, references, IAM statements and quotas', async () => {
    expect(await templateProblems(prod, prod.templateBytes)).toEqual([]);
  }, 120_000);

  it('fits the quotas with room: resources, outputs and size', () => {
    const resources = Object.keys(prod.Resources).length;
    console.log(
      `prod: ${resources} resources, ${Object.keys(prod.Outputs ?? {}).length} outputs, ${prod.templateBytes} bytes`,
    );
    expect(resources).toBeLessThan(LIMITS.resources);
    // The room is for 100 functions, each at its own cost: room-to-grow.test.ts packages that many.
    const functions = Object.values(prod.Resources).filter((r) => r.Type === 'AWS::Lambda::Function').length;
    expect(functions).toBeLessThanOrEqual(100);
  });
});

describe('a broken template fails with its resource and property named', () => {
  it('a misspelt property', async () => {
    const template = copy();
    const id = idOf('AWS::Lambda::Function');
    template.Resources[id]!.Properties.MemorySise = 256;
    expect(await templateProblems(template)).toContain(`${id}.Properties.MemorySise: no such property`);
  }, 60_000);

  it('MaximumConcurrency on the event source mapping instead of in its ScalingConfig', async () => {
    const template = copy();
    const id = idOf('AWS::Lambda::EventSourceMapping');
    const mapping = template.Resources[id]!.Properties;
    mapping.MaximumConcurrency = mapping.ScalingConfig.MaximumConcurrency;
    delete mapping.ScalingConfig;
    expect(await templateProblems(template)).toContain(
      `${id}.Properties.MaximumConcurrency: no such property`,
    );
  }, 60_000);

  it('an action that does not exist', async () => {
    const template = copy();
    const id = 'HealthIamRoleLambdaExecution';
    const statements = template.Resources[id]!.Properties.Policies[0].PolicyDocument.Statement;
    const i = statements.findIndex((s: any) => [s.Action].flat().includes('dynamodb:GetItem'));
    statements[i].Action = ['dynamodb:GetItems'];
    expect(await templateProblems(template)).toContain(
      `${id}.Policies[0].Statement[${i}].Action: no action dynamodb:GetItems`,
    );
  }, 60_000);

  it('a value of the wrong type, a required property left out, a reference to nothing', async () => {
    const template = copy();
    const fn = idOf('AWS::Lambda::Function');
    template.Resources[fn]!.Properties.Timeout = 'ten';
    delete template.Resources[fn]!.Properties.Role;
    const queue = idOf('AWS::SQS::Queue');
    template.Resources[queue]!.DependsOn = ['Nothing'];
    template.Resources.Table!.Properties.StreamSpecification = { StreamViewType: { Ref: 'Missing' } };
    const alarm = idOf('AWS::CloudWatch::Alarm');
    template.Resources[alarm]!.Properties.AlarmDescription = { 'Fn::GetAtt': ['Table', 'NoSuchAttribute'] };
    const problems = await templateProblems(template);
    expect(problems).toEqual(
      expect.arrayContaining([
        `${fn}.Properties.Timeout: expected an integer, got "ten"`,
        `${fn}.Properties.Role: required, missing`,
        `${queue}.DependsOn: no resource Nothing`,
        'Table: Ref to nothing: Missing',
        `${alarm}: Table (AWS::DynamoDB::Table) has no attribute NoSuchAttribute`,
      ]),
    );
  }, 60_000);

  it('a resource of the wrong shape for its action, and a condition key that does not exist', async () => {
    const template = copy();
    const id = 'HealthIamRoleLambdaExecution';
    const statements = template.Resources[id]!.Properties.Policies[0].PolicyDocument.Statement;
    const i = statements.findIndex((s: any) => [s.Action].flat().includes('dynamodb:GetItem'));
    statements[i].Resource = [{ 'Fn::GetAtt': ['WebhookDeliveryQueue', 'Arn'] }];
    statements[i].Condition = { 'ForAllValues:StringLike': { 'dynamodb:LeadingKey': ['HEALTH'] } };
    const problems = await templateProblems(template);
    expect(
      problems.some((p) => p.startsWith(`${id}.Policies[0].Statement[${i}].Resource: arn:aws:sqs:`)),
    ).toBe(true);
    expect(problems).toContain(
      `${id}.Policies[0].Statement[${i}].Condition.ForAllValues:StringLike: no condition key dynamodb:LeadingKey`,
    );
  }, 60_000);

  it('quotas: too many resources, too big an environment or policy, a role name too long for the longest region', async () => {
    const template = copy();
    const fn = idOf('AWS::Lambda::Function');
    template.Resources[fn]!.Properties.Environment.Variables.BIG = 'x'.repeat(LIMITS.environmentBytes);
    const role = 'HealthIamRoleLambdaExecution';
    template.Resources[role]!.Properties.Policies[0].PolicyDocument.Statement.push({
      Effect: 'Allow',
      Action: ['dynamodb:GetItem'],
      Resource: [{ 'Fn::GetAtt': ['Table', 'Arn'] }],
      Condition: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['x'.repeat(LIMITS.inlinePolicyChars)] },
      },
    });
    template.Resources[role]!.Properties.RoleName = {
      'Fn::Join': [
        '-',
        ['strategy-service', 'staging', 'a-function-name-of-thirty-chars', { Ref: 'AWS::Region' }],
      ],
    };
    for (let i = Object.keys(template.Resources).length; i <= LIMITS.resources; i++) {
      template.Resources[`Extra${i}`] = { Type: 'AWS::SQS::Queue', Properties: {} };
    }
    const problems = await templateProblems(template);
    expect(problems).toEqual(
      expect.arrayContaining([
        `template: ${LIMITS.resources + 1} resources, more than ${LIMITS.resources}`,
        expect.stringMatching(new RegExp(`^${fn}\\.Environment: \\d+ bytes of variables, more than 4096$`)),
        expect.stringMatching(
          new RegExp(`^${role}\\.Policies: \\d+ characters of inline policy, more than 10240$`),
        ),
        `${role}.RoleName: 71 characters in ${LONGEST_REGION}, more than 64`,
      ]),
    );
  }, 60_000);
});
