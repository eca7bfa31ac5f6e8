// @ts-check
/**
 * esbuild plugin for GET /api/docs (functions/api-docs.ts): `import { html, contentSecurityPolicy,
 * assets } from 'api-docs:swagger-ui'` gives the reference page and the files it loads, all served by
 * that one function, so the page loads nothing from another host.
 *
 * - Swagger UI's browser bundle and stylesheet (swagger-ui-dist, as published), our start script
 *   (web/api-docs/index.ts, bundled for the browser) and our stylesheet (web/api-docs/page.css: the bar
 *   that links back to the app) become assets named by content hash, cached for good.
 * - web/api-docs/page.html names them as `{{file}}`; they are linked relative to the page
 *   (`docs/<file>`).
 * - The Content-Security-Policy allows scripts, styles and requests from the same origin only.
 */
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const esbuild = require('esbuild');

const pageDir = resolve(__dirname, '..', 'web', 'api-docs');
const PREFIX = 'api-docs:';

/** @param {string} name @param {string} body */
const hashedName = (name, body) => {
  const hash = createHash('sha256').update(body, 'utf8').digest('hex').slice(0, 12);
  return name.replace(/\.(js|css)$/, `.${hash}.$1`);
};

/** A published file without its source-map comment (the maps are not served). */
const distFile = (/** @type {string} */ file) =>
  readFileSync(require.resolve(`swagger-ui-dist/${file}`), 'utf8').replace(
    /\n?\/[*/]# sourceMappingURL=\S+\s*(\*\/)?\s*$/,
    '',
  );

const buildDocs = async () => {
  const start = await esbuild.build({
    entryPoints: [join(pageDir, 'index.ts')],
    bundle: true,
    minify: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    target: ['chrome120', 'firefox121', 'safari17'],
    logLevel: 'silent',
  });
  /** @type {Record<string, string>} */
  const sources = {
    'swagger-ui-bundle.js': distFile('swagger-ui-bundle.js'),
    'swagger-ui.css': distFile('swagger-ui.css'),
    'api-docs.css': readFileSync(join(pageDir, 'page.css'), 'utf8'),
    'api-docs.js': start.outputFiles[0]?.text ?? '',
  };
  /** @type {Record<string, { contentType: string; body: string }>} */
  const assets = {};
  let html = readFileSync(join(pageDir, 'page.html'), 'utf8');
  for (const [name, body] of Object.entries(sources)) {
    const file = hashedName(name, body);
    const contentType = name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
    assets[file] = { contentType, body };
    const placeholder = `{{${name}}}`;
    if (!html.includes(placeholder))
      throw new Error(`api-docs: web/api-docs/page.html must contain ${placeholder}`);
    html = html.replace(placeholder, () => `docs/${file}`);
  }
  const contentSecurityPolicy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy, assets };
};

/** @type {import('esbuild').Plugin} */
const apiDocs = {
  name: 'api-docs',
  setup(build) {
    build.onResolve({ filter: /^api-docs:/ }, (args) => ({
      path: args.path.slice(PREFIX.length),
      namespace: 'api-docs',
    }));
    build.onLoad({ filter: /.*/, namespace: 'api-docs' }, async (args) => {
      if (args.path !== 'swagger-ui') throw new Error(`api-docs: unknown page "${args.path}"`);
      const { html, contentSecurityPolicy, assets } = await buildDocs();
      return {
        contents: [
          `export const html = ${JSON.stringify(html)};`,
          `export const contentSecurityPolicy = ${JSON.stringify(contentSecurityPolicy)};`,
          `export const assets = ${JSON.stringify(assets)};`,
        ].join('\n'),
        loader: 'js',
        watchFiles: [join(pageDir, 'page.html'), join(pageDir, 'index.ts'), join(pageDir, 'page.css')],
      };
    });
  },
};

module.exports = { apiDocs };
