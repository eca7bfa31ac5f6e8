/**
 * npm run bench:source-maps [-- --runs 31] [--functions push-measurement,roll-api-key]
 *
 * What the deployed functions' source maps cost at load, to decide how they are deployed
 * (docs/performance.md, "Source maps"). Packages the functions as a deploy does (bench/bundles.ts
 * `packageFunctions`), then loads each chosen handler, interleaved, in fresh `node` processes with its
 * deployed environment, three ways:
 * - as deployed: its map, NODE_OPTIONS=--enable-source-maps;
 * - with sources: the same map holding a copy of every source (`sourcesContent`, esbuild's default),
 *   put back from the files it names, with the flag;
 * - without source maps: the flag removed (Node then never reads the map).
 * Prints the median load of each, and the map's size both ways (the zips as packaged, both ways, are in
 * `npm run bench`'s table). Timings on a shared machine are noisy: only the differences within one run,
 * interleaved, say something.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type Loadable, lambdaEnv, loadTimes, packageFunctions, withoutSourceMaps } from './bundles';

const root = resolve(__dirname, '..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '31' },
    functions: { type: 'string', default: 'health,push-authorizer,push-measurement,roll-api-key,api-docs' },
  },
});

interface SourceMap {
  sources: string[];
  sourcesContent?: (string | null)[];
}

const main = async () => {
  const outDir = join(root, '.esbuild-bench-source-maps');
  const wanted = (values.functions ?? '').split(',');
  console.error('serverless package…');
  const packaged = (await packageFunctions(root, outDir)).filter((fn) => wanted.includes(fn.label));
  const loads = new Map<string, Loadable>();
  const sizes: Record<string, { map: number; zip: number; withSourcesMap: number }> = {};
  for (const fn of packaged) {
    const mapFile = `${fn.handlerFile}.map`;
    if (!existsSync(mapFile)) throw new Error(`${fn.label} has no source map`);
    const map = JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMap;
    // The sources are named relative to the build folder's functions/ (<checkout>/<work folder>/.build/
    // functions): the same relative path from a folder three levels down in the checkout finds them.
    const base = join(root, 'a', 'b', 'c');
    const withSources = {
      ...map,
      sourcesContent: map.sources.map((source) => {
        const file = resolve(base, source);
        return existsSync(file) ? readFileSync(file, 'utf8') : null;
      }),
    };
    const copy = join(outDir, 'with-sources', fn.label, 'functions');
    mkdirSync(copy, { recursive: true });
    const js = join(copy, `${fn.label}.js`);
    copyFileSync(fn.handlerFile, js);
    writeFileSync(`${js}.map`, JSON.stringify(withSources));
    sizes[fn.label] = {
      map: readFileSync(mapFile).length,
      zip: fn.zipBytes,
      withSourcesMap: readFileSync(`${js}.map`).length,
    };
    const env = lambdaEnv(fn);
    loads.set(`${fn.label}|deployed`, { file: fn.handlerFile, env });
    loads.set(`${fn.label}|with sources`, {
      file: js,
      env: { ...env, LAMBDA_TASK_ROOT: dirname(copy) },
    });
    loads.set(`${fn.label}|without source maps`, { file: fn.handlerFile, env: withoutSourceMaps(env) });
  }
  console.error(`loading (${loads.size} loads × ${values.runs}, interleaved)…`);
  const times = loadTimes([...loads.values()], Number(values.runs));
  const ms = (key: string) => Math.round((times.get(loads.get(key) as Loadable) ?? Number.NaN) * 10) / 10;
  console.table(
    packaged.map(({ label }) => {
      const size = sizes[label] as (typeof sizes)[string];
      return {
        function: label,
        'map KB': +(size.map / 1000).toFixed(1),
        'zip KB': +(size.zip / 1000).toFixed(1),
        'map KB, with sources': +(size.withSourcesMap / 1000).toFixed(1),
        'load ms, deployed': ms(`${label}|deployed`),
        'load ms, with sources': ms(`${label}|with sources`),
        'load ms, without source maps': ms(`${label}|without source maps`),
      };
    }),
  );
  console.log(`node ${process.version}; ${values.runs} fresh processes per cell, interleaved; medians`);
};

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
