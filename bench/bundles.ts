/**
 * Function bundles as `serverless package` builds them: serverless.yml `custom.esbuild` (bundle,
 * minify, linked source map and whether it holds the sources, node target, cjs, `mainFields`, its
 * plugins), one bundle per function
 * (`package.individually`). The AWS SDK is either bundled or left to the Lambda runtime's copy
 * (`external`): the benchmark builds both to compare them, and its timing runs on the one serverless.yml
 * deploys (`exclude`). The load times of the deployed functions come from `serverless package` itself
 * (`packageFunctions`): each function's zip as it is uploaded, unpacked, loaded with the environment
 * the CloudFormation template gives it (NODE_OPTIONS included), as Lambda's runtime loads it.
 */

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import JSZip from 'jszip';
import { packagingEnv } from '../scripts/local/processes';

export type SdkMode = 'bundled' | 'external';

/** A list option of serverless.yml `custom.esbuild` (`exclude`, which serverless-esbuild passes as `external`; `mainFields`). */
const esbuildListOption = (root: string, name: string): string[] | undefined => {
  const match = new RegExp(`^\\s+${name}:\\s*\\[(.*)\\]\\s*$`, 'm').exec(
    readFileSync(join(root, 'serverless.yml'), 'utf8'),
  );
  return match?.[1] !== undefined ? (JSON.parse(`[${match[1]}]`) as string[]) : undefined;
};

/** A scalar option of serverless.yml `custom.esbuild` (`target`). */
const esbuildOption = (root: string, name: string): string | undefined =>
  new RegExp(`^\\s+${name}:\\s*(\\S+)\\s*$`, 'm').exec(
    readFileSync(join(root, 'serverless.yml'), 'utf8'),
  )?.[1];

/** How serverless.yml deploys the SDK: external when its `exclude` names `@aws-sdk/*` packages. */
export const deployedSdkMode = (root: string): SdkMode =>
  (esbuildListOption(root, 'exclude') ?? []).some((name) => name.startsWith('@aws-sdk/'))
    ? 'external'
    : 'bundled';

const packageOf = (input: string): string =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? '(own code)';

/** The service's own code, as the size budget counts it: what comes from lib/ and functions/. */
const isOwnCode = (input: string) => /^(?:lib|functions)\//.test(input);

export interface Bundle {
  label: string;
  mode: SdkMode;
  outfile: string;
  /** Minified bundle, bytes. */
  bytes: number;
  /** Of which lib/ and functions/ (from the esbuild metafile). */
  ownBytes: number;
  /** The bundle deflated as a zip entry stores it (level 9), bytes. */
  zippedBytes: number;
  byPackage: Record<string, number>;
}

const zipped = (file: string) => deflateRawSync(readFileSync(file), { level: 9 }).length;

/**
 * Builds `entry` (a file, or `{ contents, resolveDir }` for a generated entry) as serverless-esbuild
 * would, with the SDK bundled or external.
 */
export const buildBundle = async (
  root: string,
  outDir: string,
  entry: string | { contents: string; resolveDir: string },
  label: string,
  mode: SdkMode,
): Promise<Bundle> => {
  const outfile = join(outDir, `${label}.${mode}.js`);
  const result = await esbuild.build({
    absWorkingDir: root,
    ...(typeof entry === 'string'
      ? { entryPoints: [entry] }
      : { stdin: { contents: entry.contents, resolveDir: entry.resolveDir, loader: 'ts' } }),
    outfile,
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    sourcesContent: esbuildOption(root, 'sourcesContent') !== 'false',
    target: esbuildOption(root, 'target'),
    platform: 'node',
    format: 'cjs',
    mainFields: esbuildListOption(root, 'mainFields'),
    external: mode === 'external' ? ['@aws-sdk/*'] : [],
    plugins: require(join(root, 'scripts', 'esbuild-plugins.cjs')),
    metafile: true,
    logLevel: 'silent',
  });
  const output = result.metafile.outputs[relative(root, outfile)];
  const byPackage: Record<string, number> = {};
  let ownBytes = 0;
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(input);
    byPackage[name] = (byPackage[name] ?? 0) + bytesInOutput;
    if (isOwnCode(input)) ownBytes += bytesInOutput;
  }
  return {
    label,
    mode,
    outfile,
    bytes: statSync(outfile).size,
    ownBytes,
    zippedBytes: zipped(outfile),
    byPackage,
  };
};

/** What a bundle needs in its environment to load (config is parsed at load, lib/runtime.ts). */
export const loadEnv = {
  PATH: process.env.PATH,
  TABLE_NAME: 'measure',
  JWT_SECRET: 'x'.repeat(32),
  AWS_REGION: 'eu-central-1',
  AWS_ACCESS_KEY_ID: 'AKIDMEASURE',
  AWS_SECRET_ACCESS_KEY: 'measure',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  LOG_LEVEL: 'silent',
  POWERTOOLS_METRICS_DISABLED: 'true',
  // Where the external SDK is found: the runtime has it, here node_modules does.
  NODE_PATH: join(__dirname, '..', 'node_modules'),
};

/** A file to load, with the environment of the process that loads it. */
export interface Loadable {
  file: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The in-process `require` time of `file` in a fresh `node` process, ms. NODE_OPTIONS of `env` apply to
 * that process, as the deployed NODE_OPTIONS apply to Lambda's runtime: `--enable-source-maps` makes
 * Node read and parse the bundle's source map when it loads the bundle, inside the timed `require`.
 */
export const loadMs = ({ file, env }: Loadable): number => {
  const script = `const t=performance.now();require(${JSON.stringify(file)});process.stdout.write(String(performance.now()-t))`;
  return Number(execFileSync(process.execPath, ['-e', script], { env, encoding: 'utf8' }));
};

export const median = (xs: readonly number[]) => quantile(xs, 0.5);

/** Nearest-rank quantile (p99 of 300 samples is the 297th smallest). */
export const quantile = (xs: readonly number[], q: number): number => {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  if (q === 0.5 && sorted.length % 2 === 0) {
    const mid = sorted.length / 2;
    return ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  }
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
};

/**
 * The median load time of each file, `runs` fresh processes each, interleaved (every file once per
 * round, in a rotating order) so that the machine's noise hits all of them alike.
 */
export const loadTimes = (loads: readonly Loadable[], runs: number): Map<Loadable, number> => {
  const samples = new Map<Loadable, number[]>(loads.map((load) => [load, []]));
  for (let run = 0; run < runs; run++) {
    const order = [...loads.slice(run % loads.length), ...loads.slice(0, run % loads.length)];
    for (const load of order) samples.get(load)?.push(loadMs(load));
  }
  return new Map(loads.map((load) => [load, median(samples.get(load) ?? [])]));
};

// ---------------------------------------------------------------------------------------------------
// The deployed artifact: `serverless package`'s zips

/** One function as `serverless package` packs it for Lambda. */
export interface PackagedFunction {
  /** The function's file name in functions/, e.g. `push-measurement`. */
  label: string;
  /** The zip as uploaded, bytes. */
  zipBytes: number;
  /** Each file in the zip and its size unpacked, bytes. */
  files: Record<string, number>;
  /** The handler's file, unpacked from the zip. */
  handlerFile: string;
  /** The function's environment variables as the template sets them (references as placeholders). */
  environment: Record<string, string>;
  memorySize: number;
}

interface TemplateFunction {
  Type: string;
  Properties: {
    Handler: string;
    MemorySize?: number;
    Code: { S3Key: unknown };
    Environment?: { Variables?: Record<string, unknown> };
  };
}

/**
 * A variable's value as Lambda would see it. CloudFormation references (a queue URL, an ARN) only
 * resolve on AWS: a placeholder of the same kind stands in, so config that is checked at load passes.
 */
const resolvedValue = (name: string, value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : name.endsWith('_URL')
      ? 'https://sqs.eu-central-1.amazonaws.com/000000000000/placeholder'
      : `placeholder-${name.toLowerCase()}`;

/**
 * Runs `serverless package --stage <stage>` into `outDir` as a deploy would (no AWS credentials, a
 * build folder and temp folder of its own), and unpacks every function's zip into `outDir/<function>`.
 */
export const packageFunctions = async (
  root: string,
  outDir: string,
  stage = 'prod',
): Promise<PackagedFunction[]> => {
  rmSync(outDir, { recursive: true, force: true });
  const packageDir = join(outDir, 'package');
  const tmp = join(outDir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const workFolder = `.esbuild-bench-package-${randomBytes(4).toString('hex')}`;
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
  try {
    const command = [
      process.execPath,
      join(root, 'node_modules/serverless/bin/serverless.js'),
      'package',
      '--stage',
      stage,
      '--package',
      packageDir,
    ];
    // On a shared machine, BENCH_PACKAGE_LOCK names the lock that builds take turns on (flock(1)): held
    // while packaging only, not while timing.
    const lock = process.env.BENCH_PACKAGE_LOCK;
    const [program, ...args] = lock ? ['flock', lock, ...command] : command;
    execFileSync(program as string, args, {
      cwd: root,
      env: packagingEnv(env, tmp, workFolder),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  } finally {
    rmSync(join(root, workFolder), { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
  const template = JSON.parse(
    readFileSync(join(packageDir, 'cloudformation-template-update-stack.json'), 'utf8'),
  ) as { Resources: Record<string, TemplateFunction> };
  const functions: PackagedFunction[] = [];
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const { Handler, MemorySize, Code, Environment } = resource.Properties;
    const handlerPath = Handler.replace(/\.[^.]+$/, '');
    const label = handlerPath.replace(/^functions\//, '');
    const zipName = JSON.stringify(Code.S3Key).match(/([\w.-]+\.zip)/)?.[1];
    if (!zipName) throw new Error(`no zip for ${Handler}`);
    const zipFile = join(packageDir, zipName);
    const zip = await JSZip.loadAsync(readFileSync(zipFile));
    const dir = join(outDir, label);
    const files: Record<string, number> = {};
    for (const entry of Object.values(zip.files)) {
      if (entry.dir) continue;
      const content = await entry.async('nodebuffer');
      files[entry.name] = content.length;
      mkdirSync(dirname(join(dir, entry.name)), { recursive: true });
      writeFileSync(join(dir, entry.name), content);
    }
    functions.push({
      label,
      zipBytes: statSync(zipFile).size,
      files,
      handlerFile: join(dir, `${handlerPath}.js`),
      environment: Object.fromEntries(
        Object.entries(Environment?.Variables ?? {}).map(([name, value]) => [
          name,
          resolvedValue(name, value),
        ]),
      ),
      memorySize: MemorySize ?? 1024,
    });
  }
  return functions.sort((a, b) => a.label.localeCompare(b.label));
};

/**
 * The environment Lambda's Node runtime gives a function: the template's variables, NODE_OPTIONS
 * included, and the runtime's own (region, function name, memory, credentials of its role).
 */
export const lambdaEnv = (
  fn: PackagedFunction,
  overrides: Record<string, string> = {},
): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  AWS_REGION: 'eu-central-1',
  AWS_DEFAULT_REGION: 'eu-central-1',
  AWS_LAMBDA_FUNCTION_NAME: `strategy-service-prod-${fn.label}`,
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  AWS_ACCESS_KEY_ID: 'AKIDMEASURE',
  AWS_SECRET_ACCESS_KEY: 'measure',
  AWS_SESSION_TOKEN: 'measure',
  LAMBDA_TASK_ROOT: dirname(dirname(fn.handlerFile)),
  ...fn.environment,
  ...overrides,
});

/** NODE_OPTIONS without `--enable-source-maps`: the same function loaded without reading its map. */
export const withoutSourceMaps = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...env,
  NODE_OPTIONS: (env.NODE_OPTIONS ?? '').replace('--enable-source-maps', '').trim(),
});
