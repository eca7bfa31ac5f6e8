import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every request to a URL a tenant chose goes through lib/egress/, where its addresses are checked at
 * connect time: no other module of lib/ may open an HTTP request of its own. The one exception fetches
 * GitHub's published secret-scanning keys from the URL the operator configures (SECRET_SCANNING_KEYS_URL),
 * which no tenant can choose.
 */
const root = resolve(__dirname, '..', '..', '..', '..');
const ALLOWED = new Set(['lib/auth/github-keys.ts']);
const OUTBOUND = /\bfetch\(|\bhttps?\.(?:request|get)\(|from 'undici'|require\('undici'\)|from 'node:https?'/;

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );

describe('outbound requests', () => {
  it('leave lib/ only through lib/egress/', () => {
    const offenders = sources(join(root, 'lib'))
      .map((file) => relative(root, file))
      .filter((file) => !file.startsWith('lib/egress/') && !ALLOWED.has(file))
      .filter((file) => OUTBOUND.test(readFileSync(join(root, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('finds the guard itself (the check reads the files it means to)', () => {
    expect(OUTBOUND.test(readFileSync(join(root, 'lib/egress/index.ts'), 'utf8'))).toBe(true);
    expect(OUTBOUND.test(readFileSync(join(root, 'lib/auth/github-keys.ts'), 'utf8'))).toBe(true);
  });
});
