/**
 * Reading measurements for `kpi-push`: a JSON array, NDJSON (one object per line) or CSV with a header
 * row of the spec's field names (spec 2.5). Every row keeps the line it starts on, so every problem
 * can be reported as `file:line`.
 */

export const FORMATS = ['json', 'ndjson', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

export interface Row {
  /** 1-based line where the row starts. */
  line: number;
  value: unknown;
}

export interface InputProblem {
  line: number;
  /** The offending field, when one is known (`actual`). */
  field?: string;
  message: string;
}

export interface ParsedInput {
  rows: Row[];
  problems: InputProblem[];
}

/** Spec 2.5: the CSV header names, in the spec's order. */
export const CSV_COLUMNS = [
  'kpiId',
  'kpiType',
  'actual',
  'target',
  'forecast',
  'periodStart',
  'periodEnd',
] as const;
const REQUIRED_COLUMNS = ['kpiId', 'kpiType', 'actual'];
const NUMBER_COLUMNS = new Set(['actual', 'target', 'forecast']);
/** A number as text may write it (CSV cells, action inputs); anything else stays text for validation to name. */
export const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** By the file's extension, else by its first character: `[` JSON, `{` NDJSON, anything else CSV. */
export const detectFormat = (name: string | undefined, text: string): Format => {
  const extension = name?.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  if (extension === 'json') return 'json';
  if (extension === 'ndjson' || extension === 'jsonl') return 'ndjson';
  if (extension === 'csv') return 'csv';
  const first = text.replace(/^\uFEFF/, '').trimStart()[0];
  return first === '[' ? 'json' : first === '{' ? 'ndjson' : 'csv';
};

/** Line number (1-based) of each offset, by binary search over the line starts. */
const lineIndex = (text: string) => {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return (offset: number) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((starts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
};

/** Node's JSON.parse messages quote the input; keep only what is wrong. */
const jsonMessage = (error: unknown) =>
  `not valid JSON (${String((error as Error).message)
    .replace(/,\s*(?:\.\.\.)?"[\s\S]*" is not valid JSON$/, '')
    .slice(0, 120)})`;

/** Start and end offsets of the elements of the top-level array, found by a scan that knows strings. */
const arrayElements = (text: string) => {
  const elements: { start: number; end: number }[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let current: { start: number; end: number } | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth === 1 && (c === ',' || c === ']')) {
      if (current) {
        current.end = i;
        elements.push(current);
        current = undefined;
      }
    } else if (depth >= 1 && !current && !/\s/.test(c)) {
      current = { start: i, end: text.length };
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
  }
  if (current) elements.push(current);
  return elements;
};

const parseJsonArray = (text: string): ParsedInput => {
  const lineAt = lineIndex(text);
  const elements = arrayElements(text);
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch {
    // Report each element that does not parse, at its line; else the array itself is broken.
    const problems = elements.flatMap(({ start, end }) => {
      try {
        JSON.parse(text.slice(start, end));
        return [];
      } catch (error) {
        return [{ line: lineAt(start), message: jsonMessage(error) }];
      }
    });
    const last = elements.at(-1);
    return {
      rows: [],
      problems:
        problems.length > 0
          ? problems
          : [
              {
                line: last ? lineAt(last.start) : 1,
                message: 'not a valid JSON array (check brackets and commas)',
              },
            ],
    };
  }
  if (!Array.isArray(whole)) {
    return { rows: [], problems: [{ line: 1, message: 'a JSON file must hold an array of measurements' }] };
  }
  return { rows: whole.map((value, i) => ({ line: lineAt(elements[i]?.start ?? 0), value })), problems: [] };
};

const parseNdjson = (text: string): ParsedInput => {
  const rows: Row[] = [];
  const problems: InputProblem[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    try {
      rows.push({ line: i + 1, value: JSON.parse(line) });
    } catch (error) {
      problems.push({ line: i + 1, message: jsonMessage(error) });
    }
  });
  return { rows, problems };
};

/** RFC 4180 records, each with the line it starts on (quoted fields may span lines). */
/** Delimiters a CSV may use instead of the comma (spreadsheets in many locales write `;`). */
const OTHER_DELIMITERS = [';', '\t', '|'];
/** A number written with a thousands separator or a decimal comma: `1,234`, `1.234,5`, `12,5`. */
const LOCALE_NUMBER = /^[-+]?\d{1,3}([.,\s]\d{3})*(,\d+)?$|^[-+]?\d+,\d+$/;

const csvRecords = (text: string, delimiter: string) => {
  const records: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let inQuotes = false;
  let line = 1;
  let recordLine = 1;
  const endField = () => {
    fields.push(quoted ? field : field.trim());
    field = '';
    quoted = false;
  };
  const endRecord = () => {
    endField();
    if (fields.length > 1 || fields[0] !== '') records.push({ line: recordLine, fields });
    fields = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inQuotes) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        inQuotes = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"' && field.trim() === '') {
      inQuotes = true;
      quoted = true;
      field = '';
    } else if (c === delimiter) {
      endField();
    } else if (c === '\n') {
      endRecord();
      line++;
      recordLine = line;
    } else if (c !== '\r') {
      field += c;
    }
  }
  if (inQuotes) return { records, unterminated: recordLine };
  endRecord();
  return { records, unterminated: undefined };
};

const parseCsv = (text: string, delimiter: string): ParsedInput => {
  const { records, unterminated } = csvRecords(text, delimiter);
  const problems: InputProblem[] = [];
  if (unterminated !== undefined) {
    problems.push({ line: unterminated, message: 'a quoted field is not closed' });
  }
  const [header, ...body] = records;
  if (!header) return { rows: [], problems };
  const known = new Set<string>(CSV_COLUMNS);
  const seen = new Set<string>();
  for (const name of header.fields) {
    if (!known.has(name)) {
      const other = OTHER_DELIMITERS.find((d) => name.split(d).some((part) => known.has(part.trim())));
      const hint = other
        ? `; the header looks separated by ${JSON.stringify(other)}: run with --delimiter ${other === '\t' ? "$'\\t'" : `'${other}'`}`
        : '';
      problems.push({
        line: header.line,
        message: `unknown column "${name.slice(0, 40)}" (the header names the fields of a measurement: ${CSV_COLUMNS.join(', ')})${hint}`,
      });
    } else if (seen.has(name)) {
      problems.push({ line: header.line, message: `column "${name}" appears twice` });
    }
    seen.add(name);
  }
  for (const name of REQUIRED_COLUMNS) {
    if (!seen.has(name)) problems.push({ line: header.line, message: `the header has no column "${name}"` });
  }
  if (problems.length > 0) return { rows: [], problems };

  const rows: Row[] = [];
  for (const { line, fields } of body) {
    if (fields.length !== header.fields.length) {
      const split =
        delimiter === ',' &&
        fields.length > header.fields.length &&
        fields.some((f) => /^\d{3}(\.\d+)?$/.test(f));
      const hint = split
        ? ` (a number with a thousands separator, e.g. 1,234, splits into two fields: write 1234, or quote it)`
        : '';
      problems.push({
        line,
        message: `has ${fields.length} fields; the header has ${header.fields.length}${hint}`,
      });
      continue;
    }
    const localeNumber = header.fields.find(
      (name, i) =>
        NUMBER_COLUMNS.has(name) && LOCALE_NUMBER.test(fields[i] ?? '') && !NUMBER.test(fields[i] ?? ''),
    );
    if (localeNumber !== undefined) {
      const cell = fields[header.fields.indexOf(localeNumber)] as string;
      problems.push({
        line,
        message: `${localeNumber}: "${cell.slice(0, 40)}" is not a number as kpi-push reads it: write it without thousands separators and with "." for decimals (e.g. 1234 or 12.5)`,
      });
      continue;
    }
    const value: Record<string, unknown> = {};
    header.fields.forEach((name, i) => {
      const cell = fields[i] ?? '';
      if (cell === '') return; // an empty cell is an absent field
      // A number column that is not a number stays text, so validation names the field.
      value[name] = NUMBER_COLUMNS.has(name) && NUMBER.test(cell) ? Number(cell) : cell;
    });
    rows.push({ line, value });
  }
  return { rows, problems };
};

/** `delimiter`: the CSV's field separator (default `,`). */
export const parseMeasurements = (text: string, format: Format, delimiter = ','): ParsedInput => {
  const content = text.replace(/^\uFEFF/, '');
  if (format === 'json') return parseJsonArray(content);
  if (format === 'ndjson') return parseNdjson(content);
  return parseCsv(content, delimiter);
};
