/**
 * What the pictures in docs/ show: the pages (web/) with the demo data (the seed). `npm run
 * screenshots` records a hash of those files in docs/screenshots.json, and a unit test compares it
 * with the files as they are, so a change to a page or to the demo data without new pictures fails.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(__dirname, '..');

export const SCREENSHOT_RECORD = join(root, 'docs', 'screenshots.json');

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );

/**
 * The files the pictures are made from, relative to the checkout, sorted: the pages and what they share
 * (the API reference page, web/api-docs/, is in no picture) and the demo data.
 */
export const screenshotSources = (): string[] =>
  [
    ...filesUnder(join(root, 'web')),
    join(root, 'scripts', 'seed.ts'),
    join(root, 'scripts', 'seed-history.ts'),
  ]
    .map((file) => relative(root, file))
    .filter((file) => !file.startsWith('web/api-docs/'))
    .sort();

/** One hash over the sources' names and contents (line endings as checked out). */
export const screenshotSourcesHash = (): string => {
  const hash = createHash('sha256');
  for (const file of screenshotSources()) {
    hash.update(`${file}\n`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\n');
  }
  return hash.digest('hex');
};
