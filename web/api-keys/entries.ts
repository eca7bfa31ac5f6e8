/**
 * The text a form sends as a list, and the service's problems with it, entry by entry: the sources
 * dialog sends the addresses typed one per line (or separated by commas or spaces), and shows each
 * problem on a line of its own, naming the line and the entry it is about.
 */

/** One address typed into the list, with the line it was typed on (1-based). */
export interface SourceEntry {
  text: string;
  line: number;
}

/** The entries of the typed list, in order; blank lines and separators are no entries. */
export const sourceEntries = (typed: string): SourceEntry[] =>
  typed.split('\n').flatMap((line, index) =>
    line
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((text) => ({ text, line: index + 1 })),
  );

const ENTRY_PATH = /^allowedSources\[(\d+)\]$/;

/** "line 2, “10.0.0.1/33”", or the entry's index where it is unknown. */
const entryName = (entries: SourceEntry[], index: number) => {
  const entry = entries[index];
  return entry ? `Line ${entry.line}, “${entry.text}”` : `Entry ${index + 1}`;
};

/**
 * Each problem of a 400 as one line: "Line 2, “10.0.0.1/33”: must be an IPv4 …". The service names an
 * entry by its index (`allowedSources[1]`), in its path and where a message refers to another entry
 * ("repeats allowedSources[0]"): both become the line that the user typed.
 */
export const sourceProblems = (
  entries: SourceEntry[],
  errors: readonly { path: string; message: string }[],
): string[] =>
  errors.map(({ path, message }) => {
    const text = message.replace(/allowedSources\[(\d+)\]/g, (_, index: string) => {
      const entry = entries[Number(index)];
      return entry ? `line ${entry.line}` : `entry ${Number(index) + 1}`;
    });
    const at = ENTRY_PATH.exec(path);
    return at ? `${entryName(entries, Number(at[1]))}: ${text}` : text;
  });
