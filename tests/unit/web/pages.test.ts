import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The pages' folders (web/<page>/), read as files: what the build plugin expects of each, and the
 * direction of their imports. A page's state is created before its view (`createPage` in state.ts,
 * `start` in index.ts), so that actions and state never import the views that call them.
 */
const web = resolve(__dirname, '..', '..', '..', 'web');
const folders = readdirSync(web, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const pages = folders.filter((name) => name !== 'shared' && name !== 'api-docs');

/** The modules a file imports, by path relative to web/ (without `.ts`). */
const importsOf = (folder: string, file: string) =>
  [
    ...readFileSync(join(web, folder, file), 'utf8').matchAll(/^import [^;]*? from '(\.{1,2}\/[^']+)';$/gms),
  ].map(([, path]) => join(folder, path ?? ''));

const modulesOf = (folder: string) =>
  readdirSync(join(web, folder))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ name: join(folder, file.replace(/\.ts$/, '')), imports: importsOf(folder, file) }));

describe('the pages under web/', () => {
  it('are the pages, a folder each with its script, document and style', () => {
    expect(pages.sort()).toEqual([
      'accept',
      'api-keys',
      'audit',
      'integrations',
      'kpis',
      'not-found',
      'people',
      'strategy',
    ]);
    for (const page of pages) {
      const files = readdirSync(join(web, page));
      expect(files, page).toEqual(expect.arrayContaining(['index.ts', 'page.html', 'page.css']));
      const html = readFileSync(join(web, page, 'page.html'), 'utf8');
      expect(html, page).toContain('<script src="./index.ts"></script>');
      expect(html, page).toContain('<link rel="stylesheet" href="./page.css" />');
    }
  });

  it('import each other one way: no cycle in a page, state.ts imports no section, and shared/ no page', () => {
    for (const page of pages) {
      const modules = modulesOf(page);
      const graph = new Map(
        modules.map(({ name, imports }) => [name, imports.filter((i) => i.startsWith(`${page}/`))]),
      );
      // A static page (not-found) has a script and no state.
      if (graph.size > 1) expect(graph.get(`${page}/state`), `${page}/state.ts`).toEqual([]);
      // Depth-first: a module met again while it is being visited closes a cycle.
      const visiting: string[] = [];
      const done = new Set<string>();
      const visit = (name: string) => {
        if (done.has(name)) return;
        expect(visiting, `import cycle through ${name}`).not.toContain(name);
        visiting.push(name);
        for (const next of graph.get(name) ?? []) visit(next);
        visiting.pop();
        done.add(name);
      };
      visit(`${page}/index`);
      // Every section is reached from the page's script (none is left behind by a move), so the walk
      // above went through all of them.
      expect([...done].sort()).toEqual([...graph.keys()].sort());
    }
    for (const { name, imports } of modulesOf('shared')) {
      expect(
        imports.filter((i) => !i.startsWith('shared/') && !i.startsWith('../')),
        name,
      ).toEqual([]);
    }
  });
});

describe('the accept page', () => {
  it('is served at the path the one-time links name', async () => {
    const { route } = await import('../../../functions/accept-page');
    const { ACCEPT_PAGE_PATH } = await import('../../../lib/auth/people');
    expect(route.paths).toEqual([ACCEPT_PAGE_PATH]);
  });
});

describe('what the pages render', () => {
  /** Every way to put text into a page as markup instead of as text. */
  const RAW_MARKUP =
    /\bunsafeHTML\b|\bunsafeSVG\b|\bunsafeMathML\b|lit-html\/directives\/unsafe-|\.innerHTML\b|\.outerHTML\b|insertAdjacentHTML|document\.write|\bDOMParser\b|createContextualFragment|\beval\(|new Function\(/;
  const sources = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? sources(join(folder, entry.name))
        : /\.(ts|html)$/.test(entry.name)
          ? [join(folder, entry.name)]
          : [],
    );

  it('is lit-html templates only: no unsafeHTML, no innerHTML, no markup built from text, in any page', () => {
    const files = sources(web);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(RAW_MARKUP);
    }
    // The check finds what it looks for.
    expect("import { unsafeHTML } from 'lit-html/directives/unsafe-html.js';").toMatch(RAW_MARKUP);
    expect('node.innerHTML = name;').toMatch(RAW_MARKUP);
  });
});
