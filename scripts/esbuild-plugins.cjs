// @ts-check
/**
 * esbuild plugins for serverless-esbuild (serverless.yml `custom.esbuild.plugins`).
 *
 * `web-bundle`: `import { html, contentSecurityPolicy } from 'web-bundle:<name>'` in a handler builds
 * the browser page `web/<name>.html` with `web/<name>.ts` (bundled for the browser, minified) and
 * `web/<name>.css` (minified) inlined, and a Content-Security-Policy that allows exactly that script
 * and style (sha256 hashes). The page thus ships inside the Lambda bundle: one build, no static hosting.
 *
 * `api-docs`: the API reference page (./esbuild-api-docs.cjs).
 */
const { createHash } = require('node:crypto');
const { existsSync, readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const esbuild = require('esbuild');

const webDir = resolve(__dirname, '..', 'web');
const PREFIX = 'web-bundle:';
const SCRIPT_TAG = '<script src="./{name}.ts"></script>';
const STYLE_TAG = '<link rel="stylesheet" href="./{name}.css" />';

/** @param {string} text */
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * @param {string} name page name, e.g. `api-keys`
 * @returns {Promise<{ html: string; contentSecurityPolicy: string; watchFiles: string[] }>}
 */
const buildPage = async (name) => {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`web-bundle: invalid page name "${name}"`);
  const htmlFile = join(webDir, `${name}.html`);
  const scriptFile = join(webDir, `${name}.ts`);
  const styleFile = join(webDir, `${name}.css`);
  const common = { bundle: true, minify: true, write: false, logLevel: /** @type {const} */ ('silent') };
  const script = await esbuild.build({
    ...common,
    entryPoints: [scriptFile],
    platform: 'browser',
    format: 'iife',
    target: ['chrome120', 'firefox121', 'safari17'],
    legalComments: 'none',
    metafile: true,
  });
  const js = script.outputFiles[0]?.text.trim() ?? '';
  // esbuild escapes `</script` in string literals; a raw one would end the inline element early.
  if (/<\/script/i.test(js)) throw new Error(`web-bundle: ${name}.ts output contains "</script"`);
  const watchFiles = [htmlFile, ...Object.keys(script.metafile.inputs).map((input) => resolve(input))];

  let css = '';
  if (existsSync(styleFile)) {
    const style = await esbuild.build({ ...common, entryPoints: [styleFile], loader: { '.css': 'css' } });
    css = style.outputFiles[0]?.text.trim() ?? '';
    if (/<\/style/i.test(css)) throw new Error(`web-bundle: ${name}.css output contains "</style"`);
    watchFiles.push(styleFile);
  }

  let html = readFileSync(htmlFile, 'utf8');
  const scriptTag = SCRIPT_TAG.replace('{name}', name);
  const styleTag = STYLE_TAG.replace('{name}', name);
  if (!html.includes(scriptTag)) throw new Error(`web-bundle: ${name}.html must contain ${scriptTag}`);
  if (css && !html.includes(styleTag)) throw new Error(`web-bundle: ${name}.html must contain ${styleTag}`);
  html = html.replace(scriptTag, () => `<script>${js}</script>`);
  html = html.replace(styleTag, () => `<style>${css}</style>`);

  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src ${sha256(js)}`,
    css ? `style-src ${sha256(css)}` : "style-src 'none'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy, watchFiles };
};

/** @type {import('esbuild').Plugin} */
const webBundle = {
  name: 'web-bundle',
  setup(build) {
    build.onResolve({ filter: /^web-bundle:/ }, (args) => ({
      path: args.path.slice(PREFIX.length),
      namespace: 'web-bundle',
    }));
    build.onLoad({ filter: /.*/, namespace: 'web-bundle' }, async (args) => {
      const { html, contentSecurityPolicy, watchFiles } = await buildPage(args.path);
      return {
        contents: `export const html = ${JSON.stringify(html)};\nexport const contentSecurityPolicy = ${JSON.stringify(contentSecurityPolicy)};\n`,
        loader: 'js',
        watchFiles,
      };
    });
  },
};

const { apiDocs } = require('./esbuild-api-docs.cjs');

module.exports = [webBundle, apiDocs];
