import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export interface CloudFormationResource {
  Type: string;
  DependsOn?: string | string[];
  Properties: Record<string, any>;
}

export interface CloudFormationTemplate {
  Resources: Record<string, CloudFormationResource>;
  Outputs?: Record<string, unknown>;
}

const root = resolve(__dirname, '..', '..');

/**
 * Runs `serverless package --stage <stage>` into a fresh directory and returns the CloudFormation
 * template a deploy would apply. Runs without AWS credentials (they are removed from the environment),
 * which is what the README promises; a command that needed them would fail here.
 */
export const packageTemplate = async (stage = 'prod'): Promise<CloudFormationTemplate> => {
  const out = mkdtempSync(join(tmpdir(), 'sls-package-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  await promisify(execFile)(
    process.execPath,
    [join(root, 'node_modules/serverless/bin/serverless.js'), 'package', '--stage', stage, '--package', out],
    { cwd: root, env: { ...env, SLS_TELEMETRY_DISABLED: '1', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent' } },
  );
  return JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'));
};

/** `[logicalId, resource]` pairs of one resource type. */
export const resourcesOfType = (template: CloudFormationTemplate, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
