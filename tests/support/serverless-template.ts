import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packagingEnv, privateTempDir } from '../../scripts/local/processes';

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
  Parameters?: Record<string, { Type: string; Default?: string; AllowedValues?: string[] }>;
  /** Where `serverless package` wrote the template and the function zips (not part of the template). */
  packageDir?: string;
  /** The size of the template file a deploy uploads (not part of the template). */
  templateBytes?: number;
  /** The pid of the `serverless package` process (not part of the template). */
  packagePid?: number;
}

const made: (() => void)[] = [];

/** Deletes the folders of every package made so far (a test file's `afterAll`). */
export const removePackages = () => {
  for (const remove of made.splice(0)) remove();
};

const root = resolve(__dirname, '..', '..');

/**
 * Runs `serverless package --stage <stage>` into a fresh directory and returns the CloudFormation
 * template a deploy would apply. Runs without AWS credentials (they are removed from the environment),
 * which is what docs/operations.md promises; a command that needed them would fail here.
 */
export const packageTemplate = async (
  stage = 'prod',
  params: Record<string, string> = {},
  /** More environment for the package run, e.g. FUNCTIONS_FILE (serverless.yml `functions`). */
  extraEnv: Record<string, string> = {},
): Promise<CloudFormationTemplate> => {
  // The package and everything serverless writes to its temp folder go in one folder of its own
  // (TMPDIR), deleted by `removePackages`: serverless-esbuild leaves a folder per function in the temp
  // folder on every package.
  const temp = privateTempDir('sls-package-');
  made.push(temp.remove);
  const out = join(temp.dir, 'package');
  const tmp = join(temp.dir, 'tmp');
  mkdirSync(tmp);
  // A build folder of its own: the default `.esbuild` is where a running serverless-offline (npm start,
  // the e2e stack) serves its handlers from, and a package would rebuild it underneath them.
  const workFolder = `.esbuild-test-${randomBytes(4).toString('hex')}`;
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  let pid: number | undefined;
  try {
    await new Promise<void>((done, fail) => {
      const child = execFile(
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
          env: { ...packagingEnv(env, tmp, workFolder), ...extraEnv },
        },
        (error, _stdout, stderr) => (error ? fail(new Error(`${error.message}\n${stderr}`)) : done()),
      );
      pid = child.pid;
    });
  } finally {
    rmSync(join(root, workFolder), { recursive: true, force: true });
  }
  const template = JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'));
  template.packageDir = out;
  template.templateBytes = Buffer.byteLength(
    readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'),
  );
  template.packagePid = pid;
  return template;
};

/** `[logicalId, resource]` pairs of one resource type. */
export const resourcesOfType = (template: CloudFormationTemplate, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
