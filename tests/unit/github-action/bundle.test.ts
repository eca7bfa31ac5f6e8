import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import packageJson from '../../../package.json';

/**
 * GitHub runs the action's committed bundle, not its source: the bundle must be what
 * `npm run build:action` makes of the source today. The build runs again into a temporary folder
 * and the bytes must match (esbuild's output depends only on its inputs).
 */
const root = resolve(__dirname, '..', '..', '..');
const BUNDLE = 'integrations/github-action/dist/index.cjs';
const dir = mkdtempSync(join(tmpdir(), 'action-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the GitHub Action', () => {
  it('runs its committed bundle on Node 24', () => {
    const yml = readFileSync(join(root, 'integrations', 'github-action', 'action.yml'), 'utf8');
    expect(yml).toMatch(/^runs:\n {2}using: node24\n {2}main: dist\/index\.cjs$/m);
  });

  it('has a committed bundle that npm run build:action makes of the current source', async () => {
    const command = packageJson.scripts['build:action'];
    const [program, ...args] = command.split(' ');
    expect(program).toBe('esbuild');
    expect(args).toContain(`--outfile=${BUNDLE}`);
    const outfile = join(dir, 'index.cjs');
    await promisify(execFile)(
      join(root, 'node_modules', '.bin', 'esbuild'),
      args.map((arg) => (arg === `--outfile=${BUNDLE}` ? `--outfile=${outfile}` : arg)),
      { cwd: root },
    );
    const rebuilt = readFileSync(outfile);
    const committed = readFileSync(join(root, BUNDLE));
    expect(
      rebuilt.equals(committed),
      `${BUNDLE} is out of date: run npm run build:action and commit it`,
    ).toBe(true);
  });
});
