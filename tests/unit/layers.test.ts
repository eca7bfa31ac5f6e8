import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Dependencies point down (docs/architecture.md#layers): a module imports only from its own layer or
 * the layers below it. Read from the import and export statements (and dynamic imports) of every
 * module of functions/ and lib/, as TypeScript's own scanner finds them.
 */
const LAYERS: { name: string; paths: string[] }[] = [
  { name: 'route modules', paths: ['functions/'] },
  { name: 'runtime', paths: ['lib/runtime.ts'] },
  // Push and pull are the two ways measurements come in, peers on one write path (lib/push/store.ts).
  {
    name: 'http, push and pull',
    paths: ['lib/http/', 'lib/push/', 'lib/pull/', 'lib/openapi/', 'lib/deployment.ts'],
  },
  {
    name: 'domain rules',
    paths: [
      'lib/api-keys/',
      'lib/auth/',
      'lib/kpis/',
      'lib/forecast/',
      'lib/webhooks/',
      'lib/alerts/',
      'lib/tenant-cache.ts',
      'lib/health.ts',
    ],
  },
  // What reaches outside the function: the table, and URLs tenants chose (the egress guard).
  { name: 'storage and egress', paths: ['lib/db/', 'lib/egress/'] },
  {
    name: 'entities and foundations',
    paths: [
      'lib/domain/',
      'lib/config.ts',
      'lib/errors.ts',
      'lib/logger.ts',
      'lib/metrics.ts',
      'lib/tracer.ts',
      'lib/ids.ts',
      'lib/promises.ts',
      'lib/crypto/',
    ],
  },
];

const root = resolve(__dirname, '../..');

const modulesUnder = (folder: string): string[] =>
  readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return modulesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

const layerOf = (path: string): number =>
  LAYERS.findIndex((layer) => layer.paths.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p)));

/** The modules of the repository a module imports (packages and data files left out). */
const importsOf = (path: string): string[] =>
  ts
    .preProcessFile(readFileSync(join(root, path), 'utf8'), true, true)
    .importedFiles.map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.') && !name.endsWith('.json'))
    .map((name) => relative(root, resolve(dirname(join(root, path)), name)))
    // A package's module reached by path (one the package does not export) is a package's too.
    .filter((target) => !target.startsWith('node_modules/'))
    .map((target) => {
      if (target.endsWith('.ts')) return target;
      // A folder's import names its index module.
      return existsSync(join(root, `${target}.ts`)) ? `${target}.ts` : `${target}/index.ts`;
    });

const modules = [...modulesUnder('functions'), ...modulesUnder('lib')];
const edges = modules.flatMap((from) => importsOf(from).map((to) => ({ from, to })));
const runsUp = ({ from, to }: { from: string; to: string }) => layerOf(to) < layerOf(from);
const upward = edges.filter(runsUp);

describe('layers: dependencies point down', () => {
  it('places every module of functions/ and lib/ in a layer', () => {
    expect(modules.length).toBeGreaterThan(100);
    expect(modules.filter((path) => layerOf(path) === -1)).toEqual([]);
  });

  it('reads the imports it judges: the push route imports the runtime, the runtime storage', () => {
    expect(importsOf('functions/push-measurement.ts')).toContain('lib/runtime.ts');
    expect(importsOf('lib/runtime.ts')).toContain('lib/db/client.ts');
  });

  it('finds no import from a higher layer', () => {
    const named = upward.map(
      ({ from, to }) =>
        `${from} (${LAYERS[layerOf(from)]?.name}) imports ${to} (${LAYERS[layerOf(to)]?.name})`,
    );
    expect(named).toEqual([]);
  });

  it('judges an import into a higher layer as running up, and one within a layer or below as not', () => {
    expect(runsUp({ from: 'lib/db/kpis.ts', to: 'lib/kpis/quiet.ts' })).toBe(true);
    expect(runsUp({ from: 'lib/domain/kpi.ts', to: 'lib/db/keys.ts' })).toBe(true);
    expect(runsUp({ from: 'lib/kpis/quiet.ts', to: 'lib/db/kpis.ts' })).toBe(false);
    expect(runsUp({ from: 'lib/http/route.ts', to: 'lib/push/push-service.ts' })).toBe(false);
    expect(runsUp({ from: 'lib/db/keys.ts', to: 'functions/login.ts' })).toBe(true);
  });
});
