// @ts-check
/**
 * esbuild plugin for GET /api/openapi.json (functions/openapi.ts): `import { body } from
 * 'openapi-document:json'` gives the committed openapi.json as the minified JSON text the function
 * serves. It ships gzip-compressed and is inflated once per container, as the pages do
 * (./esbuild-plugins.cjs): the document is 107 KB minified (15.7 KB gzip), which with middy and the
 * observability middleware (~25 KB) would take the function past the 100 KB bundle budget.
 */
const { readFileSync } = require('node:fs');
const { resolve } = require('node:path');
const { gzipSync } = require('node:zlib');

const documentFile = resolve(__dirname, '..', 'openapi.json');

/** @type {import('esbuild').Plugin} */
const openApiDocument = {
  name: 'openapi-document',
  setup(build) {
    build.onResolve({ filter: /^openapi-document:json$/ }, (args) => ({
      path: args.path,
      namespace: 'openapi-document',
    }));
    build.onLoad({ filter: /.*/, namespace: 'openapi-document' }, () => {
      const minified = JSON.stringify(JSON.parse(readFileSync(documentFile, 'utf8')));
      const packed = gzipSync(Buffer.from(minified, 'utf8'), { level: 9 }).toString('base64');
      return {
        contents: [
          "import { gunzipSync } from 'node:zlib';",
          `export const body = gunzipSync(Buffer.from(${JSON.stringify(packed)}, 'base64')).toString('utf8');`,
        ].join('\n'),
        loader: 'js',
        resolveDir: __dirname,
        watchFiles: [documentFile],
      };
    });
  },
};

module.exports = { openApiDocument };
