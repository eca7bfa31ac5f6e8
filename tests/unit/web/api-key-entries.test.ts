import { describe, expect, it } from 'vitest';
import { sourceEntries, sourceProblems } from '../../../web/api-keys/entries';

/** The sources dialog names each refused entry by the line it was typed on, one problem a line. */
describe("the sources dialog's entries", () => {
  it('reads one entry per address, with its line; commas, spaces and blank lines separate', () => {
    expect(sourceEntries('127.0.0.2\n\n10.0.0.1/33, 192.0.2.1\n  ')).toEqual([
      { text: '127.0.0.2', line: 1 },
      { text: '10.0.0.1/33', line: 3 },
      { text: '192.0.2.1', line: 3 },
    ]);
    expect(sourceEntries('')).toEqual([]);
  });

  it('gives each problem a line of its own, naming the line and the entry, also in a repeat', () => {
    const entries = sourceEntries('127.0.0.2\nnope\n\n127.0.0.2/32');
    expect(
      sourceProblems(entries, [
        { path: 'allowedSources[1]', message: 'must be an IPv4 or IPv6 address or CIDR block, not "nope"' },
        {
          path: 'allowedSources[2]',
          message: '"127.0.0.2/32" repeats allowedSources[0] (both are 127.0.0.2/32)',
        },
      ]),
    ).toEqual([
      'Line 2, “nope”: must be an IPv4 or IPv6 address or CIDR block, not "nope"',
      'Line 4, “127.0.0.2/32”: "127.0.0.2/32" repeats line 1 (both are 127.0.0.2/32)',
    ]);
  });

  it('keeps a problem of the whole list as it is, and names an entry it does not know by its number', () => {
    expect(
      sourceProblems(sourceEntries('a'), [
        { path: 'allowedSources', message: 'allowedSources may name at most 20 blocks' },
        { path: 'allowedSources[4]', message: 'repeats allowedSources[3]' },
      ]),
    ).toEqual(['allowedSources may name at most 20 blocks', 'Entry 5: repeats entry 4']);
  });
});
