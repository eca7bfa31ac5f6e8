/**
 * Function bundles as `serverless package` builds them (issue 11): serverless.yml `custom.esbuild`
 * (bundle, minify, linked source map, node20, cjs, its `exclude` as external, its plugins), one bundle
 * per function (`package.individually`). Used by the benchmark and by scripts/measure-functions.ts.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import * as esbuild from 'esbuild';

/** A list option of serverless.yml `custom.esbuild` (`exclude`, which serverless-esbuild passes as `external`; `mainFields`). */
const esbuildListOption = (root: string, name: string): string[] | undefined => {
  const match = new RegExp(`^\\s+${name}:\\s*\\[(.*)\\]\\s*$`, 'm').exec(
    readFileSync(join(root, 'serverless.yml'), 'utf8'),
  );
  return match?.[1] ? JSON.parse(`[${match[1]}]`) : undefined;
};

export const excludeOf = (root: string): string[] => esbuildListOption(root, 'exclude') ?? [];

const packageOf = (input: string): string =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ??
  (input.includes('lib/db/dynamo/') ? '(dynamo client)' : '(own code)');

export interface Bundle {
  label: string;
  tree: string;
  outfile: string;
  /** Minified bundle, bytes. */
  bytes: number;
  /** The bundle deflated as a zip entry stores it (level 9), bytes. */
  zippedBytes: number;
  /** The linked source map, bytes, and deflated. */
  mapBytes: number;
  mapZippedBytes: number;
  byPackage: Record<string, number>;
}

const zipped = (file: string) => deflateRawSync(readFileSync(file), { level: 9 }).length;

export const buildBundle = async (
  root: string,
  outDir: string,
  entry: string,
  label: string,
  tree = 'this',
): Promise<Bundle> => {
  const outfile = join(outDir, `${label}.js`);
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    target: 'node20',
    platform: 'node',
    format: 'cjs',
    mainFields: esbuildListOption(root, 'mainFields'),
    external: excludeOf(root),
    plugins: require(join(root, 'scripts', 'esbuild-plugins.cjs')),
    metafile: true,
    logLevel: 'silent',
  });
  const output = result.metafile.outputs[relative(root, outfile)];
  const byPackage: Record<string, number> = {};
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const name = packageOf(input);
    byPackage[name] = (byPackage[name] ?? 0) + bytesInOutput;
  }
  return {
    label,
    tree,
    outfile,
    bytes: statSync(outfile).size,
    zippedBytes: zipped(outfile),
    mapBytes: statSync(`${outfile}.map`).size,
    mapZippedBytes: zipped(`${outfile}.map`),
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
};

/** The in-process `require` time of `file` in a fresh `node` process, ms. */
export const loadMs = (file: string, sourceMaps = false): number => {
  const script = `const t=performance.now();require(${JSON.stringify(file)});process.stdout.write(String(performance.now()-t))`;
  const args = [...(sourceMaps ? ['--enable-source-maps'] : []), '-e', script];
  return Number(execFileSync(process.execPath, args, { env: loadEnv, encoding: 'utf8' }));
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
 * Load time of each file over an empty file: the median of `runs` fresh processes each, interleaved
 * (empty, file, empty, file, ...) so that the machine's noise hits both alike.
 */
export const loadTimes = (
  files: readonly string[],
  emptyFile: string,
  runs: number,
  sourceMaps = false,
): { empty: number; overEmpty: Map<string, number> } => {
  const samples = new Map<string, number[]>();
  const sample = (file: string) => {
    const list = samples.get(file) ?? [];
    list.push(loadMs(file, sourceMaps));
    samples.set(file, list);
  };
  for (let run = 0; run < runs; run++) {
    for (const file of files) {
      sample(emptyFile);
      sample(file);
    }
  }
  const empty = median(samples.get(emptyFile) ?? []);
  return {
    empty,
    overEmpty: new Map(files.map((file) => [file, median(samples.get(file) ?? []) - empty])),
  };
};
