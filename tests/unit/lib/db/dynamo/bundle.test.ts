import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

/*
 * Kept apart from the other command tests because it bundles lib/db/dynamo from source: `npm run
 * mutate` leaves it out (vitest.mutation.config.mts), as Stryker's instrumented copy of the source
 * keeps every command in a bundle.
 */

/** Bundles and minifies like serverless.yml's esbuild options, then loads the result. */
const minified = async (source: string) => {
  const result = await esbuild.build({
    stdin: { contents: source, resolveDir: resolve(__dirname, '../../../../..'), loader: 'ts' },
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    write: false,
  });
  const code = result.outputFiles[0]?.text ?? '';
  const module = { exports: {} as Record<string, new (input: unknown) => { operation: string }> };
  new Function('module', 'exports', 'require', code)(module, module.exports, createRequire(__filename));
  return { code, exports: module.exports };
};

describe('command classes in a minified bundle', () => {
  it('keep their names, and a bundle holds only the commands it uses', async () => {
    const { code, exports } = await minified(
      "export { GetCommand, BatchWriteCommand } from './lib/db/dynamo';",
    );
    expect(new (exports.GetCommand as new (input: unknown) => object)({}).constructor.name).toBe(
      'GetCommand',
    );
    expect(exports.BatchWriteCommand?.name).toBe('BatchWriteCommand');
    expect(code).toContain('"BatchWriteItem"');
    for (const unused of ['ScanCommand', 'TransactWriteItems', 'CreateTable', 'ListTables']) {
      expect(code).not.toContain(unused);
    }
  });
});
