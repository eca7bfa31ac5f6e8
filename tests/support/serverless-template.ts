import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export interface CloudFormationResource {
  Type: string;
  Condition?: string;
  DependsOn?: string | string[];
  Properties: Record<string, any>;
}

export interface CloudFormationTemplate {
  Resources: Record<string, CloudFormationResource>;
  Outputs?: Record<string, any>;
  Conditions?: Record<string, unknown>;
  /** Where `serverless package` wrote the template and the function zips (not part of the template). */
  packageDir?: string;
}

const root = resolve(__dirname, '..', '..');

/**
 * Runs `serverless package --stage <stage>` into a fresh directory and returns the CloudFormation
 * template a deploy would apply. Runs without AWS credentials (they are removed from the environment),
 * which is what the README promises; a command that needed them would fail here.
 */
export const packageTemplate = async (
  stage = 'prod',
  params: Record<string, string> = {},
): Promise<CloudFormationTemplate> => {
  const out = mkdtempSync(join(tmpdir(), 'sls-package-'));
  // A build folder of its own: the default `.esbuild` is where a running serverless-offline (npm start,
  // the e2e stack) serves its handlers from, and a package would rebuild it underneath them.
  const workFolder = `.esbuild-test-${randomBytes(4).toString('hex')}`;
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  try {
    await promisify(execFile)(
      process.execPath,
      [
        join(root, 'node_modules/serverless/bin/serverless.js'),
        'package',
        '--stage',
        stage,
        '--package',
        out,
        ...Object.entries(params).map(([name, value]) => `--param=${name}=${value}`),
      ],
      {
        cwd: root,
        env: {
          ...env,
          ESBUILD_WORK_FOLDER: workFolder,
          SLS_TELEMETRY_DISABLED: '1',
          AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
        },
      },
    );
  } finally {
    rmSync(join(root, workFolder), { recursive: true, force: true });
  }
  const template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'));
  template.packageDir = out;
  return template;
};

/** `[logicalId, resource]` pairs of one resource type. */
export const resourcesOfType = (template: CloudFormationTemplate, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
