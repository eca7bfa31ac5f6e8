/**
 * serverless.yml's functions, built from the route modules' declarations (`route` and `deployment`,
 * lib/deployment.ts): what `npm run functions` writes to infra/functions.json. Each function gets its
 * event from its route or trigger and a role of its own with exactly the statements its declaration
 * asks for (serverless-iam-roles-per-function).
 */

import type { Partition } from '../lib/db/keys';
import type { Deployment, ItemAction, Queue, QueueAction, Secret } from '../lib/deployment';
import { type AnyRoute, isPageRoute } from '../lib/http/route';

export interface DeclaredFunction {
  /** The file name without `.ts`: the handler is `functions/<file>.handler`. */
  file: string;
  route: AnyRoute | undefined;
  deployment: Deployment | undefined;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Statement = { [key: string]: Json };

const TABLE_ARN = { 'Fn::GetAtt': ['Table', 'Arn'] };
const indexArn = (index: string) => ({
  'Fn::Join': ['/', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, 'index', index]],
});

/** The SSM parameter of a secret, by its stage parameter (serverless.yml `params`). */
const SECRET_PARAMETERS: Record<Secret, string> = {
  jwtKey: 'jwtSecretParameter',
  secretsKey: 'secretsKeyParameter',
};

/**
 * Read one parameter, and decrypt only its value and only through SSM: SSM encrypts a SecureString
 * with the parameter's ARN as KMS encryption context, so the condition names exactly it (with the AWS
 * managed key aws/ssm or a customer managed key).
 */
const secretStatements = (secret: Secret): Statement[] => {
  const parameterArn = {
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':ssm:',
        { Ref: 'AWS::Region' },
        ':',
        { Ref: 'AWS::AccountId' },
        `:parameter\${param:${SECRET_PARAMETERS[secret]}}`,
      ],
    ],
  };
  return [
    { Effect: 'Allow', Action: ['ssm:GetParameter'], Resource: parameterArn },
    {
      Effect: 'Allow',
      Action: ['kms:Decrypt'],
      Resource: {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':kms:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ':key/*',
          ],
        ],
      },
      Condition: {
        StringEquals: {
          'kms:ViaService': { 'Fn::Join': ['', ['ssm.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
          'kms:EncryptionContext:PARAMETER_ARN': parameterArn,
        },
      },
    },
  ];
};

/** What a JWT route's wrapper reads besides its core: the session, user and tenant, and the key. */
const JWT_ROUTE: Deployment = { table: { BatchGetItem: ['SESSION#', 'TENANT#'] }, secrets: ['jwtKey'] };

/** Publishing a webhook event (lib/webhooks/publisher.ts). */
const WEBHOOK_EVENTS: Deployment = {
  table: { Query: ['TENANT#'], PutItem: ['WEBHOOK#', 'QUEUE#'], UpdateItem: ['QUEUE#'] },
  queues: { WebhookDeliveryQueue: ['SendMessage'] },
};

const union = <T>(...lists: (readonly T[] | undefined)[]): T[] =>
  [...new Set(lists.flatMap((l) => l ?? []))].sort();

/** Several declarations as one: every action on the union of its partitions. */
export const merge = (...parts: Deployment[]): Deployment => {
  const table: Partial<Record<ItemAction, Partition[]>> = {};
  const queues: Partial<Record<Queue, QueueAction[]>> = {};
  for (const part of parts) {
    for (const [action, partitions] of Object.entries(part.table ?? {}) as [ItemAction, Partition[]][]) {
      table[action] = union(table[action], partitions);
    }
    for (const [queue, actions] of Object.entries(part.queues ?? {}) as [Queue, QueueAction[]][]) {
      queues[queue] = union(queues[queue], actions);
    }
  }
  return {
    ...Object.assign({}, ...parts),
    table,
    queues,
    indexes: union(...parts.map((p) => p.indexes)),
    secrets: union(...parts.map((p) => p.secrets)),
  };
};

/** `dynamodb:LeadingKeys` of a partition: a prefix covers its kind, anything else is one partition. */
const leadingKey = (partition: Partition) => (partition.endsWith('#') ? `${partition}*` : partition);

/** The role's statements: one per set of partitions, naming every action on exactly those. */
export const statementsOf = (deployment: Deployment): Statement[] => {
  const byPartitions = new Map<string, string[]>();
  for (const [action, partitions] of Object.entries(deployment.table ?? {}).sort()) {
    if (!partitions || partitions.length === 0) continue;
    const key = union(partitions).map(leadingKey).join(',');
    byPartitions.set(key, [...(byPartitions.get(key) ?? []), `dynamodb:${action}`]);
  }
  const statements: Statement[] = [...byPartitions].map(([keys, actions]) => ({
    Effect: 'Allow',
    Action: actions,
    Resource: [TABLE_ARN],
    Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': keys.split(',') } },
  }));
  for (const index of deployment.indexes ?? []) {
    statements.push({ Effect: 'Allow', Action: ['dynamodb:Query'], Resource: [indexArn(index)] });
  }
  for (const [queue, actions] of Object.entries(deployment.queues ?? {}).sort()) {
    if (!actions || actions.length === 0) continue;
    statements.push({
      Effect: 'Allow',
      Action: actions.map((a) => `sqs:${a}`),
      Resource: { 'Fn::GetAtt': [queue, 'Arn'] },
    });
  }
  for (const secret of deployment.secrets ?? []) statements.push(...secretStatements(secret));
  return statements;
};

/** A Serverless variable, resolved when the framework reads the file (`${param:…}`, `${self:…}`). */
export const variable = (reference: string) => `\${${reference}}`;

const camelCase = (file: string) => file.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The deployment a function needs in all: its declaration, with what its route and publishing add. */
export const deploymentOf = ({ route, deployment = {} }: DeclaredFunction): Deployment =>
  merge(
    ...(route && !isPageRoute(route) && route.auth === 'jwt' ? [JWT_ROUTE] : []),
    ...(deployment.publishesWebhookEvents ? [WEBHOOK_EVENTS] : []),
    deployment,
  );

const eventsOf = ({ route, deployment }: DeclaredFunction): Json[] => {
  const trigger = deployment?.trigger;
  if (trigger && 'schedule' in trigger) return [{ schedule: trigger.schedule }];
  if (trigger) {
    return [
      {
        sqs: {
          arn: { 'Fn::GetAtt': [trigger.queue, 'Arn'] },
          batchSize: trigger.batchSize,
          maximumBatchingWindow: trigger.maximumBatchingWindow,
          // The event source never starts more workers than the function may run.
          ...(deployment?.tenantUrls
            ? { maximumConcurrency: deployment.tenantUrls.reservedConcurrency }
            : {}),
          functionResponseType: 'ReportBatchItemFailures',
        },
      },
    ];
  }
  if (!route) return []; // the push authorizer: API Gateway calls it for the push routes
  if (isPageRoute(route))
    return route.paths.map((path) => ({ http: { path: path.slice(1), method: 'get' } }));
  const http: Record<string, Json> = { path: `api${route.path}`, method: route.method };
  if (route.auth === 'apiKey') {
    http.private = variable('param:pushPrivate');
    http.authorizer = variable('self:custom.pushAuthorizer');
  } else if (route.auth === 'jwt' || route.cors === true) {
    http.cors = variable('self:custom.jwtCors');
  }
  return [{ http }];
};

/** serverless.yml's `functions`, by function name, in file order. */
export const serverlessFunctions = (modules: DeclaredFunction[]): Record<string, Record<string, Json>> => {
  const functions: Record<string, Record<string, Json>> = {};
  for (const module of modules) {
    const declared = module.deployment ?? {};
    const name = declared.name ?? camelCase(module.file);
    if (functions[name]) throw new Error(`two functions named ${name}`);
    const events = eventsOf(module);
    functions[name] = {
      handler: `functions/${module.file}.handler`,
      ...(declared.memorySize ? { memorySize: declared.memorySize } : {}),
      ...(declared.timeout ? { timeout: declared.timeout } : {}),
      ...(declared.tenantUrls ? { reservedConcurrency: declared.tenantUrls.reservedConcurrency } : {}),
      ...(events.length > 0 ? { events } : {}),
      // The role's name, shorter than serverless-iam-roles-per-function's (which adds `-lambdaRole`
      // and counts the region it packages for): IAM's 64 characters must hold the longest region's
      // name too (a template test checks it).
      iamRoleStatementsName: `${variable('self:service')}-${variable('sls:stage')}-${name}-${variable('aws:region')}`,
      iamRoleStatements: statementsOf(deploymentOf(module)),
    };
  }
  return functions;
};

export const FUNCTIONS_FILE = 'infra/functions.json';

export const serializeFunctions = (functions: ReturnType<typeof serverlessFunctions>) =>
  `${JSON.stringify(functions, null, 2)}\n`;
