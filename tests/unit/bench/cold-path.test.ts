import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../../../bench/bundles';
import { COLD_LIMIT, COLD_PATH, packageOfSource } from '../../../bench/cold';
import { loadMaps, mapStack, sourcePath } from '../../../scripts/stack';

const { withoutSchemaDocs } = require('../../../scripts/esbuild-schema-docs.cjs') as {
  withoutSchemaDocs: (text: string, fileName: string) => string | undefined;
};

/**
 * The cold path's deterministic properties, from the bundles as serverless.yml builds them: which
 * packages a function carries is decided at build time, so it is asserted on the bundle, never timed.
 */
const root = resolve(__dirname, '../../..');
const outDir = join(root, `.esbuild-cold-test-${process.pid}`);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

const packagesOf = async (fn: string) =>
  (await buildBundle(root, outDir, join(root, 'functions', `${fn}.ts`), fn, 'bundled')).byPackage;

describe('the push functions and their authorizer', { timeout: 120_000 }, () => {
  it('are the cold path the bench holds to 1.5 × the floor', () => {
    expect(COLD_PATH.sort()).toEqual(['push-authorizer', 'push-measurement', 'push-measurements-batch']);
    expect(COLD_LIMIT).toBe(1.5);
  });

  it.each(['push-measurement', 'push-measurements-batch', 'push-authorizer', 'check-push-key'])(
    '%s bundles neither the X-Ray SDK nor a Tracer',
    async (fn) => {
      const packages = await packagesOf(fn);
      expect(packages['aws-xray-sdk-core']).toBeUndefined();
      expect(packages['cls-hooked']).toBeUndefined();
      // At most the middy middleware's few hundred bytes, which a route without a Tracer never runs.
      expect(packages['@aws-lambda-powertools/tracer'] ?? 0).toBeLessThan(1_500);
    },
  );

  it.each(['list-kpis', 'deliver-webhooks'])(
    '%s keeps the Tracer and its DynamoDB subsegments',
    async (fn) => {
      const packages = await packagesOf(fn);
      expect(packages['aws-xray-sdk-core']).toBeGreaterThan(10_000);
      expect(packages['@aws-lambda-powertools/tracer']).toBeGreaterThan(1_500);
    },
  );
});

describe('the schemas in a function bundle', { timeout: 60_000 }, () => {
  it('hold no OpenAPI description or id, and keep every other check', () => {
    const source = [
      "import * as z from 'zod/mini';",
      'export const a = z.string().check(z.describe("A name."));',
      'export const b = z',
      '  .object({ n: z.int().check(z.minimum(1), z.describe("At least one.")) })',
      '  .check(',
      '    z.meta({',
      '      id: "B",',
      '    }),',
      '  );',
      'export const c = z.string().check(z.maxLength(3));',
      '',
    ].join('\n');
    const stripped = withoutSchemaDocs(source, 'lib/x.ts') as string;
    expect(stripped).not.toMatch(/describe|meta|A name|"B"/);
    expect(stripped).toContain('z.int().check(z.minimum(1)');
    expect(stripped).toContain('export const c = z.string().check(z.maxLength(3));');
    // Every line keeps its number, so the bundle's map points at the source's lines.
    expect(stripped.split('\n').length).toBe(source.split('\n').length);
    expect(stripped.split('\n')[9]).toBe(source.split('\n')[9]);
  });

  it('leaves a module without documented schemas, or without zod, to esbuild', () => {
    expect(
      withoutSchemaDocs("import * as z from 'zod/mini';\nexport const a = z.string();\n", 'lib/x.ts'),
    ).toBeUndefined();
    expect(withoutSchemaDocs('export const meta = (x) => x.describe();\n', 'lib/x.ts')).toBeUndefined();
  });

  it('leave the route’s documentation out of the push bundle', async () => {
    const { outfile } = await buildBundle(
      root,
      outDir,
      join(root, 'functions', 'push-measurement.ts'),
      'docs',
      'bundled',
    );
    const text = readFileSync(outfile, 'utf8');
    expect(text).not.toContain('tells this answer from a stored measurement');
    expect(text).not.toContain('DryRunMeasurement');
    // The routes' own texts that the handler answers with stay.
    expect(text).toContain('/integrations/push/measurement');
  });
});

describe('the CPU profile’s attribution', () => {
  it('names the package a bundled source came from, and our own code', () => {
    expect(packageOfSource('../../../node_modules/@smithy/core/dist-es/index.js')).toBe('@smithy/core');
    expect(packageOfSource('../../../node_modules/zod/v4/core/core.js')).toBe('zod');
    expect(packageOfSource('../../../lib/push/push-service.ts')).toBe('(own code)');
    expect(packageOfSource('../../../functions/push-measurement.ts')).toBe('(own code)');
    expect(packageOfSource('<stdin>')).toBe('(other)');
  });
});

describe('npm run -s stack', { timeout: 60_000 }, () => {
  it('turns a logged stack of a minified bundle into the source positions its map gives', async () => {
    const dir = join(outDir, 'stack');
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(
      join(dir, 'src', 'thrower.ts'),
      [
        'export const handler = () => {',
        '  const detail = "cold";',
        '  throw new Error("thrown " + detail);',
        '};',
        '',
      ].join('\n'),
    );
    await esbuild.build({
      absWorkingDir: dir,
      entryPoints: [join(dir, 'src', 'thrower.ts')],
      outfile: join(dir, 'zip', 'functions', 'thrower.js'),
      bundle: true,
      minify: true,
      sourcemap: 'linked',
      sourcesContent: false,
      platform: 'node',
      format: 'cjs',
      logLevel: 'silent',
    });
    const stack = execFileSync(
      process.execPath,
      [
        '-e',
        `try { require(${JSON.stringify(join(dir, 'zip', 'functions', 'thrower.js'))}).handler() } catch (e) { process.stdout.write(e.stack) }`,
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH } },
    );
    expect(stack).toMatch(/functions\/thrower\.js:1:\d+/);
    const mapped = mapStack(stack, await loadMaps([join(dir, 'zip')]));
    expect(mapped).toMatch(/src\/thrower\.ts:3:9 \[[^\]]*functions\/thrower\.js:1:\d+\]/);
    expect(mapped.split('\n')[0]).toBe('Error: thrown cold');
  });

  it('leaves a frame without a map as it is', () => {
    const stack = 'Error: x\n    at y (/var/task/functions/unknown.js:1:20)';
    expect(mapStack(stack, new Map())).toBe(stack);
  });

  it('names a source as a path in the checkout', () => {
    expect(sourcePath('../../../lib/push/push-service.ts')).toBe('lib/push/push-service.ts');
    expect(sourcePath('./lib/x.ts')).toBe('lib/x.ts');
  });
});
