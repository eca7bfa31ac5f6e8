// @ts-check
/**
 * esbuild plugin `schema-docs`: the function bundles carry the schemas without their documentation.
 *
 * The route and entity schemas hold the OpenAPI document's descriptions and ids as zod checks
 * (`.check(z.describe(…))`, `.check(z.meta({ … }))`). Only `npm run openapi` reads them (through tsx,
 * never through this plugin), and every `.check()` clones its schema at module load: in a Lambda they
 * cost each cold start and say nothing. In our own modules (lib/, functions/) the plugin removes each
 * `z.describe(…)` and `z.meta(…)` argument of a `.check(…)` call, and the call when nothing else is left,
 * keeping every other check. The text it removes is replaced by as many line breaks as it held, so
 * every line keeps its number in the source map. A module without such a check is left to esbuild.
 */
const { readFileSync } = require('node:fs');
const { relative, resolve } = require('node:path');
const ts = require('typescript');

const root = resolve(__dirname, '..');
const OWN = /^(?:lib|functions)\/.*\.ts$/;
const DOC_CALLS = new Set(['describe', 'meta']);

/** The namespace the module imports `zod/mini` as (`import * as z from 'zod/mini'`), if it does. */
const zodNamespace = (/** @type {ts.SourceFile} */ file) => {
  for (const statement of file.statements) {
    if (
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      statement.moduleSpecifier.text === 'zod/mini' &&
      statement.importClause?.namedBindings &&
      ts.isNamespaceImport(statement.importClause.namedBindings) &&
      !statement.importClause.isTypeOnly
    )
      return statement.importClause.namedBindings.name.text;
  }
  return undefined;
};

/** Keeps the line breaks of the text it blanks. */
const blank = (/** @type {string} */ text) => text.replace(/[^\n]/g, '');

/**
 * The module's text with its schemas' documentation removed, or undefined when it has none.
 * @param {string} text
 * @param {string} fileName
 */
const withoutSchemaDocs = (text, fileName) => {
  if (!/\.(?:describe|meta)\(/.test(text)) return undefined;
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const z = zodNamespace(file);
  if (!z) return undefined;
  /** @param {ts.Expression} node */
  const isDoc = (node) =>
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    ts.isIdentifier(node.expression.expression) &&
    node.expression.expression.text === z &&
    DOC_CALLS.has(node.expression.name.text);
  /** @type {{ start: number; end: number; text: string }[]} */
  const edits = [];
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'check' &&
      node.arguments.some(isDoc)
    ) {
      const kept = node.arguments.filter((arg) => !isDoc(arg));
      if (kept.length === 0) {
        // `schema.check(z.describe('…'))` → `schema`
        const start = node.expression.expression.getEnd();
        edits.push({ start, end: node.getEnd(), text: blank(text.slice(start, node.getEnd())) });
      } else {
        const start = node.arguments.pos;
        const end = node.arguments.end;
        const keptText = kept.map((arg) => arg.getText(file)).join(', ');
        const lost = text.slice(start, end).split('\n').length - keptText.split('\n').length;
        edits.push({ start, end, text: keptText + '\n'.repeat(Math.max(0, lost)) });
      }
      // The schema the documentation was attached to may itself hold documented schemas.
      visit(node.expression.expression);
      for (const arg of kept) visit(arg);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (edits.length === 0) return undefined;
  edits.sort((a, b) => b.start - a.start);
  let out = text;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
};

/** @type {import('esbuild').Plugin} */
const schemaDocs = {
  name: 'schema-docs',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const path = relative(root, args.path);
      if (!OWN.test(path)) return undefined;
      const contents = withoutSchemaDocs(readFileSync(args.path, 'utf8'), args.path);
      return contents === undefined ? undefined : { contents, loader: 'ts' };
    });
  },
};

module.exports = { schemaDocs, withoutSchemaDocs };
