/**
 * Function bundles as `serverless package` builds them: serverless.yml `custom.esbuild` (bundle,
 * minify, linked source map, node target, cjs, `mainFields`, its plugins), one bundle per function
 * (`package.individually`). The AWS SDK is either bundled or left to the Lambda runtime's copy
 * (`external`): the benchmark builds both to compare them, and its timing runs on the one serverless.yml
 * deploys (`exclude`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import * as esbuild from 'esbuild';

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

/** The in-process `require` time of `file` in a fresh `node` process, ms. */
export const loadMs = (file: string): number => {
  const script = `const t=performance.now();require(${JSON.stringify(file)});process.stdout.write(String(performance.now()-t))`;
  return Number(execFileSync(process.execPath, ['-e', script], { env: loadEnv, encoding: 'utf8' }));
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
export const loadTimes = (files: readonly string[], runs: number): Map<string, number> => {
  const samples = new Map<string, number[]>(files.map((file) => [file, []]));
  for (let run = 0; run < runs; run++) {
    const order = [...files.slice(run % files.length), ...files.slice(0, run % files.length)];
    for (const file of order) samples.get(file)?.push(loadMs(file));
  }
  return new Map(files.map((file) => [file, median(samples.get(file) ?? [])]));
};
