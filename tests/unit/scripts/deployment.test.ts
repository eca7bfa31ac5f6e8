import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys, PARTITIONS } from '../../../lib/db/keys';
import { defineDeployment } from '../../../lib/deployment';
import { definePage } from '../../../lib/http/route';
import {
  type DeclaredFunction,
  deploymentOf,
  FUNCTIONS_FILE,
  serializeFunctions,
  serverlessFunctions,
  statementsOf,
  variable,
} from '../../../scripts/deployment';
import { loadRouteModules } from '../../../scripts/routes';

/**
 * serverless.yml's functions come from the route modules' declarations (scripts/deployment.ts): what
 * a declaration turns into, and that the committed infra/functions.json is what they give today.
 */
let modules: DeclaredFunction[];
beforeAll(async () => {
  modules = (await loadRouteModules()).map(({ name, route, deployment }) => ({
    file: name,
    route,
    deployment,
  }));
}, 120_000);

const TABLE = [{ 'Fn::GetAtt': ['Table', 'Arn'] }];
const jwtRoute = { method: 'get', path: '/things', auth: 'jwt' } as never;

describe('the functions file', () => {
  it('is current: the committed file is what `npm run functions` generates from the declarations', () => {
    const committed = readFileSync(resolve(__dirname, '..', '..', '..', FUNCTIONS_FILE), 'utf8');
    expect(committed).toBe(serializeFunctions(serverlessFunctions(modules)));
  });

  it('has a function for every module of functions/, each with a role of its own', () => {
    const functions = serverlessFunctions(modules);
    expect(Object.keys(functions)).toHaveLength(modules.length);
    for (const fn of Object.values(functions)) expect(fn.iamRoleStatements).toBeInstanceOf(Array);
  });
});

describe('a declaration', () => {
  it('becomes one statement per set of partitions, naming every action on exactly those', () => {
    const statements = statementsOf(
      defineDeployment({
        table: { GetItem: ['KPI#'], Query: ['KPI#'], PutItem: ['AUDIT#'] },
        indexes: ['gsi2'],
      }),
    );
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:Query'],
        Resource: TABLE,
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['KPI#*'] } },
      },
      {
        Effect: 'Allow',
        Action: ['dynamodb:PutItem'],
        Resource: TABLE,
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['AUDIT#*'] } },
      },
      {
        Effect: 'Allow',
        Action: ['dynamodb:Query'],
        Resource: [{ 'Fn::Join': ['/', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, 'index', 'gsi2']] }],
      },
    ]);
  });

  it('names a partition that is one item exactly, and a kind of partitions by its prefix', () => {
    const [statement] = statementsOf(defineDeployment({ table: { GetItem: ['HEALTH', 'TENANT#'] } }));
    expect(statement!.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['HEALTH', 'TENANT#*'] },
    });
  });

  it('gives a JWT route the session check and the JWT key, and nothing to a route without auth', () => {
    const jwt = deploymentOf({ file: 'x', route: jwtRoute, deployment: { table: { Query: ['KPI#'] } } });
    expect(jwt.table).toEqual({ BatchGetItem: ['SESSION#', 'TENANT#'], Query: ['KPI#'] });
    expect(jwt.secrets).toEqual(['jwtKey']);
    const page = deploymentOf({ file: 'p', route: definePage(['/platform/x']), deployment: undefined });
    expect(statementsOf(page)).toEqual([]);
  });

  it('lets a function that publishes webhook events read the endpoints, write deliveries and send to the queue', () => {
    const statements = statementsOf(
      deploymentOf({ file: 'x', route: undefined, deployment: { publishesWebhookEvents: true } }),
    );
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: ['sqs:SendMessage'],
      Resource: { 'Fn::GetAtt': ['WebhookDeliveryQueue', 'Arn'] },
    });
    const actions = statements.flatMap((s) => s.Action as string[]);
    expect(actions.sort()).toEqual([
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'sqs:SendMessage',
    ]);
  });

  it('reads a secret from its one parameter, decrypted only through SSM for it', () => {
    const [read, decrypt] = statementsOf(defineDeployment({ secrets: ['secretsKey'] }));
    expect(JSON.stringify(read!.Resource)).toContain(`:parameter${variable('param:secretsKeyParameter')}`);
    expect(decrypt!.Action).toEqual(['kms:Decrypt']);
    expect((decrypt!.Condition as any).StringEquals['kms:EncryptionContext:PARAMETER_ARN']).toEqual(
      read!.Resource,
    );
  });

  it('turns its trigger, reserved concurrency, memory and time-out into the function', () => {
    const { worker } = serverlessFunctions([
      {
        file: 'worker',
        route: undefined,
        deployment: defineDeployment({
          trigger: { queue: 'PullRunQueue', batchSize: 5, maximumBatchingWindow: 1 },
          tenantUrls: { reservedConcurrency: 20 },
          memorySize: 512,
          timeout: 60,
        }),
      },
    ]);
    expect(worker).toMatchObject({
      handler: 'functions/worker.handler',
      memorySize: 512,
      timeout: 60,
      reservedConcurrency: 20,
      events: [
        {
          sqs: {
            arn: { 'Fn::GetAtt': ['PullRunQueue', 'Arn'] },
            batchSize: 5,
            maximumBatchingWindow: 1,
            maximumConcurrency: 20,
            functionResponseType: 'ReportBatchItemFailures',
          },
        },
      ],
    });
  });

  it('routes an HTTP function by its route: JWT with CORS, a push route behind the authorizer, a page without either', () => {
    const functions = serverlessFunctions([
      { file: 'list-things', route: jwtRoute, deployment: undefined },
      {
        file: 'push-thing',
        route: { method: 'post', path: '/push', auth: 'apiKey' } as never,
        deployment: undefined,
      },
      { file: 'page', route: definePage(['/platform/a', '/platform/b']), deployment: { memorySize: 256 } },
    ]);
    expect(functions.listThings!.events).toEqual([
      { http: { path: 'api/things', method: 'get', cors: variable('self:custom.jwtCors') } },
    ]);
    expect(functions.pushThing!.events).toEqual([
      {
        http: {
          path: 'api/push',
          method: 'post',
          private: variable('param:pushPrivate'),
          authorizer: variable('self:custom.pushAuthorizer'),
        },
      },
    ]);
    expect(functions.page!.events).toEqual([
      { http: { path: 'platform/a', method: 'get' } },
      { http: { path: 'platform/b', method: 'get' } },
    ]);
  });

  it('refuses two functions of one name', () => {
    expect(() =>
      serverlessFunctions([
        { file: 'a', route: undefined, deployment: { name: 'same' } },
        { file: 'b', route: undefined, deployment: { name: 'same' } },
      ]),
    ).toThrow('two functions named same');
  });
});

describe('the partitions a declaration may name', () => {
  it('are the partitions the keys of lib/db/keys.ts begin with, and every one of them', () => {
    const built = Object.values(keys).flatMap((key) => {
      const made = (key as (...args: string[]) => Record<string, string>)('x', 'y', 'z');
      return typeof made.pk === 'string' ? [made.pk] : [];
    });
    for (const pk of built) {
      expect(
        PARTITIONS.some((p) => (p.endsWith('#') ? pk.startsWith(p) : pk === p)),
        pk,
      ).toBe(true);
    }
    for (const partition of PARTITIONS) {
      expect(
        built.some((pk) => (partition.endsWith('#') ? pk.startsWith(partition) : pk === partition)),
        partition,
      ).toBe(true);
    }
  });
});
