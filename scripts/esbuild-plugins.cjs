// @ts-check
/**
 * esbuild plugins for serverless-esbuild (serverless.yml `custom.esbuild.plugins`).
 *
 * `web-bundle`: `import { html, contentSecurityPolicy } from 'web-bundle:<name>'` in a handler builds
 * the browser page of the folder `web/<name>/`: `page.html` with `index.ts` (the page's script, bundled
 * for the browser with the modules it imports, minified) and `page.css` (minified) inlined, and a
 * Content-Security-Policy that allows exactly that script and style (sha256 hashes). The page thus ships
 * inside the Lambda bundle: one build, no static hosting. Each page's folder holds its own sections
 * (state, views, dialogs, charts, actions): only `index.ts` and what it imports reach the bundle.
 * The HTML is stored gzip-compressed (the KPI page: 44 KB instead of 79 KB) and inflated once per
 * container, so page functions stay within the 100 KB bundle budget with their chart library.
 *
 * Pages share code without copies: the script and the style import modules under web/shared/
 * (esbuild bundles both `import` and CSS `@import`), and `<!-- include shared/<name>.html -->` in a page
 * is replaced by web/shared/<name>.html.
 *
 * `api-docs`: the API reference page (./esbuild-api-docs.cjs).
 *
 * `schema-docs`: the schemas' OpenAPI descriptions and ids stay out of the function bundles
 * (./esbuild-schema-docs.cjs).
 *
 * `side-effect-free`: CommonJS packages that only define things when loaded, declared so. esbuild
 * cannot tell that from CommonJS and keeps such a package in every bundle whose import graph reaches
 * it, used or not: `ipaddr.js`, imported by the egress guard (lib/egress/), which lib/runtime.ts builds
 * for the functions that call tenant URLs, would otherwise sit in every function. Powertools Tracer's
 * ES modules set an X-Ray default and load the X-Ray SDK (which installs async hooks) when loaded: both
 * matter only where a Tracer is built, so the push functions, which build none (lib/runtime.ts), carry
 * neither.
 *
 * `build-progress`: with BUILD_PROGRESS_FILE set (`npm start`, scripts/start.ts), each function's build
 * appends a JSON line when it starts and when it ends, so the start can say how far the build is and
 * wait as long as it advances (scripts/local/build-progress.ts reads the lines).
 */
const { createHash } = require('node:crypto');
const { appendFileSync, existsSync, readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { gzipSync } = require('node:zlib');
const esbuild = require('esbuild');

const webDir = resolve(__dirname, '..', 'web');
const PREFIX = 'web-bundle:';
/** What page.html names its script and style by; they are inlined there. */
const SCRIPT_TAG = '<script src="./index.ts"></script>';
const STYLE_TAG = '<link rel="stylesheet" href="./page.css" />';
const INCLUDE = /<!--\s*include\s+(shared\/[a-z0-9-]+\.html)\s*-->/g;

/** @param {string} text */
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * @param {string} name page name, e.g. `api-keys`
 * @returns {Promise<{ html: string; contentSecurityPolicy: string; watchFiles: string[] }>}
 */
const buildPage = async (name) => {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`web-bundle: invalid page name "${name}"`);
  const pageDir = join(webDir, name);
  const htmlFile = join(pageDir, 'page.html');
  const scriptFile = join(pageDir, 'index.ts');
  const styleFile = join(pageDir, 'page.css');
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
  // Minified code has no line breaks of its own: each one left is in a template literal, where the
  // source's indentation follows it. Between elements and in text, HTML collapses a run of whitespace to
  // one space, so the break alone renders the same and the pages ship without the indentation.
  const js = (script.outputFiles[0]?.text.trim() ?? '').replace(/\n[ \t]+/g, '\n');
  // esbuild escapes `</script` in string literals; a raw one would end the inline element early.
  if (/<\/script/i.test(js)) throw new Error(`web-bundle: web/${name}/index.ts output contains "</script"`);
  const watchFiles = [htmlFile, ...Object.keys(script.metafile.inputs).map((input) => resolve(input))];

  let css = '';
  if (existsSync(styleFile)) {
    const style = await esbuild.build({
      ...common,
      entryPoints: [styleFile],
      loader: { '.css': 'css' },
      metafile: true,
    });
    css = style.outputFiles[0]?.text.trim() ?? '';
    if (/<\/style/i.test(css)) throw new Error(`web-bundle: web/${name}/page.css output contains "</style"`);
    watchFiles.push(...Object.keys(style.metafile.inputs).map((input) => resolve(input)));
  }

  let html = readFileSync(htmlFile, 'utf8').replace(INCLUDE, (_, file) => {
    const included = join(webDir, file);
    watchFiles.push(included);
    return readFileSync(included, 'utf8').trim();
  });
  if (!html.includes(SCRIPT_TAG))
    throw new Error(`web-bundle: web/${name}/page.html must contain ${SCRIPT_TAG}`);
  if (css && !html.includes(STYLE_TAG))
    throw new Error(`web-bundle: web/${name}/page.html must contain ${STYLE_TAG}`);
  html = html.replace(SCRIPT_TAG, () => `<script>${js}</script>`);
  html = html.replace(STYLE_TAG, () => `<style>${css}</style>`);

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
      // The page ships gzip-compressed and is inflated once per container: the KPI page's chart
      // library alone is 52 KB, and every function bundle stays within 100 KB.
      const packed = gzipSync(Buffer.from(html, 'utf8'), { level: 9 }).toString('base64');
      return {
        contents: [
          "import { gunzipSync } from 'node:zlib';",
          `export const html = gunzipSync(Buffer.from(${JSON.stringify(packed)}, 'base64')).toString('utf8');`,
          `export const contentSecurityPolicy = ${JSON.stringify(contentSecurityPolicy)};`,
        ].join('\n'),
        loader: 'js',
        resolveDir: __dirname,
        watchFiles,
      };
    });
  },
};

/** Packages whose loading has no effect but their exports (read from their source, at the pinned version). */
const SIDE_EFFECT_FREE = /^(?:ipaddr\.js|@aws-lambda-powertools\/tracer(?:\/middleware)?)$/;

/** @type {import('esbuild').Plugin} */
const sideEffectFree = {
  name: 'side-effect-free',
  setup(build) {
    build.onResolve({ filter: SIDE_EFFECT_FREE }, async (args) => {
      if (args.pluginData === sideEffectFree) return undefined;
      const { path, errors, warnings } = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: sideEffectFree,
      });
      return { path, errors, warnings, sideEffects: false };
    });
  },
};

/** @type {import('esbuild').Plugin} */
const buildProgress = {
  name: 'build-progress',
  setup(build) {
    const file = process.env.BUILD_PROGRESS_FILE;
    if (!file) return;
    const entry = String([build.initialOptions.entryPoints ?? []].flat()[0] ?? '');
    /** @param {Record<string, unknown>} event */
    const record = (event) =>
      appendFileSync(file, `${JSON.stringify({ entry, at: Date.now(), ...event })}\n`);
    build.onStart(() => record({ event: 'start' }));
    build.onEnd(() => record({ event: 'end' }));
  },
};

const { apiDocs } = require('./esbuild-api-docs.cjs');
const { schemaDocs } = require('./esbuild-schema-docs.cjs');

module.exports = [webBundle, apiDocs, sideEffectFree, schemaDocs, buildProgress];
