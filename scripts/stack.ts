/**
 * npm run -s stack -- <file with a logged stack> [--maps <folder or zip>]…   (no file: stdin)
 *
 * Turns a stack trace from a function's log into our files and lines. The functions run without
 * Node's `--enable-source-maps` (docs/performance.md, "Cold starts"): a logged frame names the
 * bundle, e.g. `/var/task/functions/push-measurement.js:1:48213`. Each zip that `serverless package`
 * makes (`.serverless/*.zip`, the default) carries that bundle's map beside it; so does the zip that
 * `aws lambda get-function` links to, or the folder it unpacks to. Each such frame is rewritten to the
 * source position the map gives (`lib/push/push-service.ts:212:11`), with the bundle's position kept
 * in brackets; frames without a map stay as they are. Node's own `SourceMap` reads the maps.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import JSZip from 'jszip';

/** A bundle's frame: `…functions/<name>.js:<line>:<column>`. */
const FRAME = /(?:[\w./-]*\/)?functions\/([\w-]+)\.js:(\d+):(\d+)/g;

/** A map's source as a path in the checkout: `../../../lib/x.ts` → `lib/x.ts`. */
export const sourcePath = (source: string): string =>
  source.replace(/^(?:\.\.\/|\.\/)+/, '').replace(/^webpack:\/\//, '');

/** The maps of each function (by name) in the given folders and zips. */
export const loadMaps = async (places: readonly string[]): Promise<Map<string, SourceMap>> => {
  const maps = new Map<string, SourceMap>();
  const add = (name: string, text: string) => {
    if (!maps.has(name)) maps.set(name, new SourceMap(JSON.parse(text)));
  };
  const visit = async (place: string): Promise<void> => {
    if (!existsSync(place)) return;
    if (statSync(place).isDirectory()) {
      for (const entry of readdirSync(place)) await visit(join(place, entry));
      return;
    }
    const mapName = /functions\/([\w-]+)\.js\.map$/.exec(place)?.[1];
    if (mapName) add(mapName, readFileSync(place, 'utf8'));
    if (place.endsWith('.zip')) {
      const zip = await JSZip.loadAsync(readFileSync(place));
      for (const entry of Object.values(zip.files)) {
        const name = /functions\/([\w-]+)\.js\.map$/.exec(entry.name)?.[1];
        if (name && !entry.dir) add(name, await entry.async('string'));
      }
    }
  };
  for (const place of places) await visit(resolve(place));
  return maps;
};

/** The stack with every bundle frame that a map covers rewritten to its source position. */
export const mapStack = (stack: string, maps: ReadonlyMap<string, SourceMap>): string =>
  stack.replace(FRAME, (frame, name: string, line: string, column: string) => {
    const map = maps.get(name);
    // Stack positions count from 1, a map's from 0.
    const entry = map?.findEntry(Number(line) - 1, Number(column) - 1) as
      | { originalSource?: string; originalLine?: number; originalColumn?: number }
      | undefined;
    if (!entry?.originalSource || entry.originalLine === undefined || entry.originalColumn === undefined)
      return frame;
    return `${sourcePath(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1} [${frame}]`;
  });

const main = async () => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { maps: { type: 'string', multiple: true } },
  });
  const [file] = positionals;
  const stack = readFileSync(file ?? 0, 'utf8');
  const maps = await loadMaps(values.maps ?? ['.serverless']);
  if (maps.size === 0) {
    console.error('No function maps found: run `npm run package`, or name a zip or folder with --maps.');
    process.exit(1);
  }
  process.stdout.write(mapStack(stack, maps));
};

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
