/**
 * Size and load time of every Lambda bundle (issue 11, benchmark budgets: ≤ 100 KB minified and
 * ≤ 40 ms to load over an empty file, per function).
 *
 *   npx tsx scripts/measure-functions.ts [--runs 10] [--source-maps] [--baseline <checkout>]
 *
 * Each `functions/*.ts` is built as serverless-esbuild builds it (serverless.yml `custom.esbuild`:
 * bundle, minify, linked source map, node20, cjs, its `exclude` as external, its plugins) into
 * `.esbuild-measure/` of its checkout, so that an external package still resolves from that
 * checkout's node_modules when the bundle is required, as the Lambda runtime's SDK would. The
 * DynamoDB client (`lib/db/dynamo`) is built alone as one more row. `--baseline` builds another
 * checkout's functions too (e.g. `git archive main` unpacked and `npm ci`-ed), measured in the same
 * interleaved runs, since figures from different runs on a loaded machine do not compare.
 * `--require <file>` (repeatable) adds a file loaded as it is, e.g. one that requires the SDK from
 * node_modules.
 * Load time is the in-process `require` time of the bundle in a fresh `node` process: the median of
 * `--runs` processes minus the median of as many requiring an empty file. `--source-maps` runs node
 * with `--enable-source-maps`, as serverless.yml's NODE_OPTIONS does on AWS.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    'source-maps': { type: 'boolean', default: false },
    baseline: { type: 'string' },
    require: { type: 'string', multiple: true, default: [] },
  },
});
const runs = Number(values.runs);

/** serverless.yml `custom.esbuild.exclude`, which serverless-esbuild passes to esbuild as `external`. */
const excludeOf = (root: string): string[] => {
  const match = /^\s+exclude:\s*\[(.*)\]\s*$/m.exec(readFileSync(join(root, 'serverless.yml'), 'utf8'));
  return match?.[1] ? JSON.parse(`[${match[1]}]`) : [];
};

const packageOf = (input: string): string =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ??
  (input.includes('lib/db/dynamo/') ? '(dynamo client)' : '(own code)');

interface Bundle {
  label: string;
  tree: string;
  outfile: string;
  bytes: number;
  byPackage: Record<string, number>;
}

const build = async (root: string, tree: string, entry: string, label: string): Promise<Bundle> => {
  const outDir = join(root, '.esbuild-measure');
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
  return { label, tree, outfile, bytes: statSync(outfile).size, byPackage };
};

const buildTree = async (root: string, tree: string): Promise<Bundle[]> => {
  rmSync(join(root, '.esbuild-measure'), { recursive: true, force: true });
  mkdirSync(join(root, '.esbuild-measure'), { recursive: true });
  const bundles: Bundle[] = [];
  for (const file of readdirSync(join(root, 'functions'))
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    bundles.push(await build(root, tree, join(root, 'functions', file), basename(file, '.ts')));
  }
  const client = join(root, 'lib', 'db', 'dynamo', 'index.ts');
  if (existsSync(client)) bundles.push(await build(root, tree, client, '(dynamo client alone)'));
  return bundles;
};

const env = {
  PATH: process.env.PATH,
  TABLE_NAME: 'measure',
  JWT_SECRET: 'x'.repeat(32),
  AWS_REGION: 'eu-central-1',
  AWS_ACCESS_KEY_ID: 'AKIDMEASURE',
  AWS_SECRET_ACCESS_KEY: 'measure',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  LOG_LEVEL: 'silent',
};

const loadMs = (file: string): number => {
  const script = `const t=performance.now();require(${JSON.stringify(file)});process.stdout.write(String(performance.now()-t))`;
  const args = [...(values['source-maps'] ? ['--enable-source-maps'] : []), '-e', script];
  return Number(execFileSync(process.execPath, args, { env, encoding: 'utf8' }));
};

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const at = (i: number) => sorted[i] ?? Number.NaN;
  return sorted.length % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
};

const main = async () => {
  const root = resolve(__dirname, '..');
  const bundles = await buildTree(root, 'this');
  if (values.baseline) bundles.push(...(await buildTree(resolve(values.baseline), 'baseline')));
  for (const file of values.require) {
    bundles.push({
      label: file,
      tree: 'as is',
      outfile: resolve(file),
      bytes: statSync(file).size,
      byPackage: {},
    });
  }
  const empty = join(root, '.esbuild-measure', 'empty.js');
  writeFileSync(empty, '');

  const samples: Record<string, number[]> = {};
  const sample = (file: string) => {
    samples[file] ??= [];
    samples[file].push(loadMs(file));
  };
  for (let run = 0; run < runs; run++) {
    for (const bundle of bundles) {
      sample(empty);
      sample(bundle.outfile);
    }
  }
  const emptyMedian = median(samples[empty] ?? []);
  console.table(
    bundles.map((bundle) => ({
      tree: bundle.tree,
      bundle: bundle.label,
      bytes: bundle.bytes,
      loadMs: +(median(samples[bundle.outfile] ?? []) - emptyMedian).toFixed(1),
      largest: Object.entries(bundle.byPackage)
        .sort(([, a], [, b]) => b - a)
        .slice(0, 5)
        .map(([name, bytes]) => `${name} ${(bytes / 1000).toFixed(1)}`)
        .join(', '),
    })),
  );
  console.log(
    `empty require median ${emptyMedian.toFixed(1)} ms; ${runs} runs each, interleaved` +
      `${values['source-maps'] ? ', --enable-source-maps' : ''}; node ${process.version}; ` +
      `external: ${JSON.stringify(excludeOf(root))}${values.baseline ? ` (baseline ${JSON.stringify(excludeOf(resolve(values.baseline)))})` : ''}`,
  );
};

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
