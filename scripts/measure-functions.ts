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
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type Bundle, buildBundle, excludeOf, loadTimes } from '../bench/bundles';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    'source-maps': { type: 'boolean', default: false },
    baseline: { type: 'string' },
    require: { type: 'string', multiple: true, default: [] },
  },
});
const runs = Number(values.runs);

const build = (root: string, tree: string, entry: string, label: string) =>
  buildBundle(root, join(root, '.esbuild-measure'), entry, label, tree);

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
      zippedBytes: Number.NaN,
      mapBytes: 0,
      mapZippedBytes: 0,
      byPackage: {},
    });
  }
  const empty = join(root, '.esbuild-measure', 'empty.js');
  writeFileSync(empty, '');

  const { empty: emptyMedian, overEmpty } = loadTimes(
    bundles.map((bundle) => bundle.outfile),
    empty,
    runs,
    values['source-maps'],
  );
  console.table(
    bundles.map((bundle) => ({
      tree: bundle.tree,
      bundle: bundle.label,
      bytes: bundle.bytes,
      loadMs: +(overEmpty.get(bundle.outfile) ?? Number.NaN).toFixed(1),
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
