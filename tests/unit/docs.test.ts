import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { generateApiKey, RANDOM_BYTES, SCANNER_PATTERN } from '../../lib/api-keys/key-format';
import packageJson from '../../package.json';
import { SCREENSHOT_RECORD, screenshotSourcesHash } from '../../scripts/screenshot-sources';

/**
 * The README and docs/ as a reader meets them in a clone: a landing page of at most 300 lines, one
 * page per reader, links that lead somewhere inside the repository, no references a clone cannot
 * follow, and figures that match the code.
 */
const root = resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const docs = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const pages = ['README.md', ...docs];

/** The source files of a folder, `.ts` and `.cjs`, as the repository holds them. */
const filesUnder = (folder: string): string[] =>
  readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path);
    return /\.(ts|cjs)$/.test(entry.name) ? [path] : [];
  });

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');

const anchorsOf = (file: string) =>
  new Set(
    read(file)
      .replace(/```[\s\S]*?```/g, '')
      .split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => slug(line.replace(/^#+ /, ''))),
  );

/** Markdown links and images outside code: `[text](target)`. */
const linksOf = (file: string) =>
  [
    ...read(file)
      .replace(/```[\s\S]*?```/g, '')
      .matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g),
  ].map((match) => match[1]!);

describe('the README', () => {
  it('is a landing page: at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('maps the docs: one page per reader, each linked from the README', () => {
    const readme = read('README.md');
    for (const page of [
      'api',
      'integration',
      'operations',
      'architecture',
      'performance',
      'security',
      'development',
    ]) {
      expect(readme, page).toContain(`](docs/${page}.md)`);
      expect(docs, page).toContain(`docs/${page}.md`);
    }
  });
});

describe('the docs', () => {
  it('link only inside the repository, to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of linksOf(page)) {
        if (/^https?:\/\/localhost[:/]/.test(link)) continue; // the local stack's pages
        if (/^[a-z]+:/i.test(link)) {
          broken.push(`${page}: ${link} leaves the repository`);
          continue;
        }
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? page : relative(root, resolve(root, dirname(page), path));
        if (target.startsWith('..')) {
          broken.push(`${page}: ${link} is outside the repository`);
          continue;
        }
        if (!existsSync(join(root, target))) {
          broken.push(`${page}: ${link} does not exist`);
          continue;
        }
        if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor)) {
          broken.push(`${page}: ${link} names no heading of ${target}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('refer to nothing a clone does not have: no work-item numbers, no ../shared', () => {
    for (const page of [...pages, 'CHANGELOG.md']) {
      const text = read(page);
      expect(text, page).not.toMatch(/\bissues? #?\d+/i);
      expect(text, page).not.toContain('../shared');
    }
  });

  it('speak of the reader’s deployment, not of the machine they were written on', () => {
    // What the network or the daemons of the authors' machine allowed is no operator's concern.
    for (const page of pages) {
      expect(read(page), page).not.toMatch(
        /network reaches only|Docker daemon|neither host is reachable|no (?:internet|network) here/i,
      );
    }
  });

  it('name every audit event the service logs, as it logs it (none is "reserved")', () => {
    const events = [...read('lib/domain/audit-event.ts').matchAll(/^ {2}'([a-z_-]+\.?[a-z-]*)',$/gm)].map(
      (match) => match[1]!,
    );
    expect(events).toContain('api_key.rolled');
    const operations = read('docs/operations.md');
    for (const event of events) expect(operations, event).toContain(`\`${event}\``);
    // An event is logged or it is not listed: none is "reserved" for later (reserved concurrency is another matter).
    expect(operations).not.toMatch(/`[a-z_-]+\.[a-z]+`[^\n]*\breserved\b(?! concurrency)/i);
  });

  it('give secret scanners the key format as the code makes keys: every key matches, near-misses do not', () => {
    const documented = /\*\*The key format\*\*[\s\S]*?```\n(.+)\n```/.exec(read('docs/operations.md'))?.[1];
    expect(documented).toBe(SCANNER_PATTERN);
    const pattern = new RegExp(documented!, 'g');
    const seeds = Array.from({ length: 200 }, (_, i) => Buffer.alloc(RANDOM_BYTES, i));
    seeds.push(Buffer.alloc(RANDOM_BYTES, 0), Buffer.alloc(RANDOM_BYTES, 0xff));
    for (const seed of seeds) {
      const key = generateApiKey(() => seed);
      // As GitHub meets keys: in a line of config, quoted, at the end of a line.
      for (const text of [`API_KEY=${key}\n`, `"key": "${key}"`, key]) {
        expect(
          [...text.matchAll(pattern)].map((m) => m[0]),
          text,
        ).toEqual([key]);
      }
      const nearMisses = [
        key.slice(0, -1), // one character short
        `${key}a`, // one character long
        `x${key}`, // the prefix inside a word
        key.replace('skm_', 'skm-'),
        key.replace('skm_', 'SKM_'),
        `${key.slice(0, 10)}-${key.slice(11)}`, // a character outside base62
      ];
      for (const text of nearMisses) expect(text.match(pattern), text).toBeNull();
    }
  });

  it('define every section of the interface that the code and tests cite as `spec N`', () => {
    const interfacePage = read('docs/interface.md');
    const sections = new Set(
      [...interfacePage.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((match) => match[1]),
    );
    // `spec 5.2.4` is the fourth numbered item of section 5.2.
    const itemsOf = (section: string) => {
      const body =
        interfacePage.split(new RegExp(`^#{2,3} ${section.replace('.', '\\.')}\\.? .*$`, 'm'))[1] ?? '';
      return new Set([...body.split(/^#{2,3} /m)[0]!.matchAll(/^(\d+)\. /gm)].map((match) => match[1]));
    };
    const files = ['lib', 'functions', 'web', 'clients', 'scripts', 'tests', 'bench'].flatMap((folder) =>
      filesUnder(folder),
    );
    const cited = files.flatMap((file) =>
      [...read(file).matchAll(/\bspec (\d+(?:\.\d+)*(?:(?:, | and |\/|–|-)\d+(?:\.\d+)*)*)/gi)].flatMap(
        (match) => match[1]!.split(/, | and |\/|–|-/).map((section) => ({ file, section })),
      ),
    );
    expect(cited.length).toBeGreaterThan(50);
    const undefinedSections = cited.filter(({ section }) => {
      const [major, minor, item] = section.split('.');
      const heading = minor === undefined ? major! : `${major}.${minor}`;
      if (!sections.has(heading)) return true;
      return item !== undefined && !itemsOf(heading).has(item);
    });
    expect(undefinedSections).toEqual([]);
  });

  it('state the OpenAPI document’s size as it is', () => {
    const document = read('openapi.json');
    const minified = Buffer.byteLength(JSON.stringify(JSON.parse(document)));
    const stated = /It is (\d+) KB as minified JSON \((\d+) KB gzip-compressed\)/.exec(read('docs/api.md'));
    expect(stated, 'docs/api.md states the size').not.toBeNull();
    expect(Number(stated![1])).toBe(Math.round(minified / 1000));
    expect(Number(stated![2])).toBe(Math.round(gzipSync(JSON.stringify(JSON.parse(document))).length / 1000));
  });

  it('show the pages as they are: the screenshots were made from the current pages and demo data', () => {
    // `npm run screenshots` makes them again and records what they show.
    const record = JSON.parse(readFileSync(SCREENSHOT_RECORD, 'utf8')) as { sha256: string };
    expect(record.sha256).toBe(screenshotSourcesHash());
    for (const png of ['api-keys-page.png', 'kpis-page.png', 'kpi-detail.png', 'strategy-page.png']) {
      expect(existsSync(join(root, 'docs', png)), png).toBe(true);
    }
  });
});

describe('the CHANGELOG', () => {
  it('has released versions in Keep a Changelog form, the newest being package.json’s', () => {
    const changelog = read('CHANGELOG.md');
    const releases = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)].map(
      (m) => m[1],
    );
    expect(releases.length).toBeGreaterThanOrEqual(2);
    expect(releases[0]).toBe(packageJson.version);
    expect(releases).toContain('0.1.0');
    // Every version heading is linked or dated; "Unreleased" may only come first.
    const headings = [...changelog.matchAll(/^## (.*)$/gm)].map((m) => m[1]!);
    expect(headings.filter((heading) => !/^\[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}$/.test(heading))).toEqual(
      headings[0] === '[Unreleased]' ? ['[Unreleased]'] : [],
    );
  });
});
