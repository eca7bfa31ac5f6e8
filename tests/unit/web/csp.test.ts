import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * Each page's Content-Security-Policy as its function answers it (built by scripts/esbuild-plugins.cjs):
 * nothing by default, and exactly its own inline script and style, by hash; never `unsafe-inline`,
 * `unsafe-eval` or another origin. Built here as the deployment builds it, without a browser.
 */
const root = resolve(__dirname, '..', '..', '..');
const require = createRequire(__filename);
const plugins = require(resolve(root, 'scripts', 'esbuild-plugins.cjs')) as Plugin[];
const pages = readdirSync(resolve(root, 'web'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'shared' && entry.name !== 'api-docs')
  .map((entry) => entry.name);

const bundleOf = async (page: string) => {
  const result = await build({
    stdin: {
      contents: `export { html, contentSecurityPolicy } from 'web-bundle:${page}';`,
      resolveDir: root,
    },
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    logLevel: 'silent',
    plugins,
  });
  const module = { exports: {} as { html: string; contentSecurityPolicy: string } };
  new Function('module', 'exports', 'require', result.outputFiles[0]!.text)(module, module.exports, require);
  return module.exports;
};

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describe('the pages’ Content-Security-Policy', () => {
  it.each(pages)('%s: default-src none, and only its own inline script and style by hash', async (page) => {
    const { html, contentSecurityPolicy } = await bundleOf(page);
    const directives = Object.fromEntries(
      contentSecurityPolicy.split('; ').map((directive) => {
        const [name, ...values] = directive.split(' ');
        return [name, values.join(' ')];
      }),
    );
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!);
    expect(scripts).toHaveLength(1);
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet|\son[a-z]+=/i);
    expect(directives).toMatchObject({
      'default-src': "'none'",
      'script-src': sha256(scripts[0]!),
      'style-src': styles.length === 1 ? sha256(styles[0]!) : "'none'",
      'connect-src': "'self'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
    expect(contentSecurityPolicy).not.toMatch(/unsafe-|https?:|\*/);
  });
});
