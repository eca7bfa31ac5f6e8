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
 *
 * `import { index, pages } from 'api-docs:problems'` gives GET /api/problems and
 * GET /api/problems/{slug}: a page for each problem `type` of lib/errors.ts, with its status and title
 * from there and its "when" from the table of docs/api.md#errors, made at build time. Both kinds of
 * page carry the bar of the app's pages (web/shared/pages.ts), with the reference and the problem
 * types beside them.
 */
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const esbuild = require('esbuild');

const root = resolve(__dirname, '..');
const pageDir = resolve(root, 'web', 'api-docs');
const apiGuide = resolve(root, 'docs', 'api.md');
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

/** A TypeScript module of ours, bundled and run here for the data it exports. */
const load = async (/** @type {string} */ file) => {
  const out = await esbuild.build({
    entryPoints: [resolve(root, file)],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    logLevel: 'silent',
  });
  const module = { exports: /** @type {Record<string, unknown>} */ ({}) };
  new Function('module', 'exports', 'require', out.outputFiles[0]?.text ?? '')(
    module,
    module.exports,
    require,
  );
  return module.exports;
};

const escapeHtml = (/** @type {string} */ text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The bar above the reference and the problem pages: the app's pages, then the reference's own.
 * `up` leads from the page's folder to the API's base (`<base>/api/`).
 * @param {string} up @param {'docs' | 'problems'} here
 */
const bar = async (up, here) => {
  const { APP_PAGES } = /** @type {{ APP_PAGES: { page: string; label: string }[] }} */ (
    await load('web/shared/pages.ts')
  );
  const current = (/** @type {string} */ page) => (page === here ? ' aria-current="page"' : '');
  const links = [
    ...APP_PAGES.map(({ page, label }) => `<a href="${up}../platform/${page}">${escapeHtml(label)}</a>`),
    `<a href="${up}docs"${current('docs')}>API reference</a>`,
    `<a href="${up}problems"${current('problems')}>Problem types</a>`,
    `<a href="${up}openapi.json">openapi.json</a>`,
  ];
  return `<header class="bar">
      <p class="brand"><a href="${up}../platform/kpis">Strategy service</a></p>
      <nav id="nav" class="nav" aria-label="Pages">
        ${links.join('\n        ')}
      </nav>
    </header>`;
};

/** The rows of docs/api.md's table of problem types: slug → when it is answered (Markdown). */
const problemRows = () => {
  const text = readFileSync(apiGuide, 'utf8');
  const section = text.slice(
    text.indexOf('\n## Errors'),
    text.indexOf('\n## ', text.indexOf('\n## Errors') + 1),
  );
  /** @type {Record<string, string>} */
  const rows = {};
  for (const match of section.matchAll(/^\| (\d{3}) \| `([a-z-]+)` \| (.*) \|$/gm))
    rows[match[2] ?? ''] = match[3] ?? '';
  return rows;
};

/** Markdown's `code` as HTML, the rest escaped. */
const inline = (/** @type {string} */ text) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const buildProblems = async () => {
  const { errorCatalog, PROBLEM_TYPE_BASE } =
    /** @type {{ errorCatalog: Record<string, { status: number; slug: string; title: string }>; PROBLEM_TYPE_BASE: string }} */ (
      await load('lib/errors.ts')
    );
  const { assets } = await docsOnce();
  const css = Object.keys(assets).find((name) => name.startsWith('api-docs.') && name.endsWith('.css'));
  const when = problemRows();
  const types = Object.values(errorCatalog).sort(
    (a, b) => a.status - b.status || a.slug.localeCompare(b.slug),
  );
  for (const { slug } of types) {
    if (!when[slug]) throw new Error(`api-docs: docs/api.md#errors has no row for the problem type ${slug}`);
  }
  const page = async (
    /** @type {string} */ up,
    /** @type {string} */ title,
    /** @type {string} */ body,
  ) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>${escapeHtml(title)} · Strategy service</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${up}docs/${css}" />
  </head>
  <body>
    ${await bar(up, 'problems')}
    <main class="problems">
${body}
    </main>
  </body>
</html>
`;
  const identifier = `<p>A problem's <code>type</code> is an identifier that clients switch on, the same on every
      deployment: <code>${escapeHtml(PROBLEM_TYPE_BASE)}&lt;slug&gt;</code>. Each deployment serves its page here, at
      <code>&lt;API base&gt;/problems/&lt;slug&gt;</code>.</p>`;
  /** @type {Record<string, string>} */
  const pages = {};
  for (const { slug, status, title } of types) {
    pages[slug] = await page(
      '../',
      title,
      `      <h1>${escapeHtml(title)}</h1>
      <dl>
        <dt>Type</dt><dd><code>${escapeHtml(PROBLEM_TYPE_BASE + slug)}</code></dd>
        <dt>Status</dt><dd>${status}</dd>
        <dt>When</dt><dd>${inline(when[slug] ?? '')}</dd>
      </dl>
      <p>Every problem also has <code>detail</code>, for people, and <code>requestId</code>, to quote when asking for support.
      <a href="../problems">All problem types</a>.</p>
      ${identifier}`,
    );
  }
  const rows = types
    .map(
      ({ slug, status, title }) =>
        `        <tr><td>${status}</td><td><a href="problems/${slug}"><code>${slug}</code></a></td><td>${escapeHtml(title)}</td><td>${inline(when[slug] ?? '')}</td></tr>`,
    )
    .join('\n');
  const index = await page(
    '',
    'Problem types',
    `      <h1>Problem types</h1>
      ${identifier}
      <table>
        <thead><tr><th scope="col">Status</th><th scope="col">Type</th><th scope="col">Title</th><th scope="col">When</th></tr></thead>
        <tbody>
${rows}
        </tbody>
      </table>`,
  );
  return { index, pages };
};

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
  let html = readFileSync(join(pageDir, 'page.html'), 'utf8').replace('{{bar}}', await bar('', 'docs'));
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

/** @type {ReturnType<typeof buildDocs> | undefined} */
let docs;
/** The reference page of this build: both virtual modules need it, and a rebuild makes it again. */
const docsOnce = () => {
  docs ??= buildDocs();
  return docs;
};

/** @type {import('esbuild').Plugin} */
const apiDocs = {
  name: 'api-docs',
  setup(build) {
    build.onStart(() => {
      docs = undefined;
    });
    build.onResolve({ filter: /^api-docs:/ }, (args) => ({
      path: args.path.slice(PREFIX.length),
      namespace: 'api-docs',
    }));
    build.onLoad({ filter: /.*/, namespace: 'api-docs' }, async (args) => {
      if (args.path === 'problems') {
        const { index, pages } = await buildProblems();
        return {
          contents: [
            `export const index = ${JSON.stringify(index)};`,
            `export const pages = ${JSON.stringify(pages)};`,
          ].join('\n'),
          loader: 'js',
          watchFiles: [
            apiGuide,
            resolve(root, 'lib', 'errors.ts'),
            resolve(root, 'web', 'shared', 'pages.ts'),
            join(pageDir, 'page.css'),
          ],
        };
      }
      if (args.path !== 'swagger-ui') throw new Error(`api-docs: unknown page "${args.path}"`);
      const { html, contentSecurityPolicy, assets } = await docsOnce();
      return {
        contents: [
          `export const html = ${JSON.stringify(html)};`,
          `export const contentSecurityPolicy = ${JSON.stringify(contentSecurityPolicy)};`,
          `export const assets = ${JSON.stringify(assets)};`,
        ].join('\n'),
        loader: 'js',
        watchFiles: [
          join(pageDir, 'page.html'),
          join(pageDir, 'index.ts'),
          join(pageDir, 'page.css'),
          resolve(root, 'web', 'shared', 'pages.ts'),
        ],
      };
    });
  },
};

module.exports = { apiDocs };
