import { describe, expect, it } from 'vitest';
import {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  backoffDelay,
  retryAfterMs,
} from '../../../clients/kpi-push/client';
import { detectFormat, parseMeasurements } from '../../../clients/kpi-push/input';
import { validateRows } from '../../../clients/kpi-push/validate';

const KPI = '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f';

describe('kpi-push input formats', () => {
  it('detects the format by extension, else by the first character', () => {
    expect(detectFormat('a.json', '')).toBe('json');
    expect(detectFormat('a.NDJSON', '')).toBe('ndjson');
    expect(detectFormat('a.jsonl', '')).toBe('ndjson');
    expect(detectFormat('a.csv', '[')).toBe('csv');
    expect(detectFormat(undefined, '\uFEFF  [{"a":1}]')).toBe('json');
    expect(detectFormat(undefined, '{"a":1}\n{"a":2}')).toBe('ndjson');
    expect(detectFormat('data.txt', 'kpiId,kpiType,actual')).toBe('csv');
  });

  it('JSON array: each element keeps the line it starts on', () => {
    const text = `[\n  {"kpiId": "${KPI}", "kpiType": "BSC_KPI",\n   "actual": 1},\n\n  {"kpiId": "a,]}{[", "actual": [1, 2]}, 7\n]`;
    const { rows, problems } = parseMeasurements(text, 'json');
    expect(problems).toEqual([]);
    expect(rows.map((row) => row.line)).toEqual([2, 5, 5]);
    expect(rows[1]?.value).toEqual({ kpiId: 'a,]}{[', actual: [1, 2] });
  });

  it('JSON array: a broken element is reported at its line, without quoting the input', () => {
    const text = `[\n {"actual": 1},\n {"actual": },\n {"actual": 3}\n]`;
    expect(parseMeasurements(text, 'json').problems).toEqual([
      { line: 3, message: expect.stringMatching(/^not valid JSON \(/) },
    ]);
    expect(parseMeasurements('{"actual": 1}', 'json').problems).toEqual([
      { line: 1, message: 'a JSON file must hold an array of measurements' },
    ]);
    expect(parseMeasurements('[{"actual": 1}', 'json').problems).toEqual([
      { line: 1, message: 'not a valid JSON array (check brackets and commas)' },
    ]);
  });

  it('NDJSON: one object per line, blank lines skipped, every bad line reported', () => {
    const { rows, problems } = parseMeasurements('{"a":1}\r\n\n{"a":\n{"a":3}\nnope', 'ndjson');
    expect(rows).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 4, value: { a: 3 } },
    ]);
    expect(problems.map((problem) => problem.line)).toEqual([3, 5]);
  });

  it('CSV: header of spec field names, RFC 4180 quoting, empty cell = absent, numbers typed', () => {
    const text = [
      '\uFEFFkpiId, kpiType ,actual,target,forecast,periodStart,periodEnd',
      `${KPI},BSC_KPI,40.5,,1e3,2026-09-01,2026-09-30`,
      `"${KPI}","OKR_""KEY""",-0.7,"12",,,`,
      '',
      `${KPI},BSC_KPI,"4`,
      `2",abc,,,`,
      `${KPI},BSC_KPI,1,2`,
    ].join('\r\n');
    const { rows, problems } = parseMeasurements(text, 'csv');
    expect(rows).toEqual([
      {
        line: 2,
        value: {
          kpiId: KPI,
          kpiType: 'BSC_KPI',
          actual: 40.5,
          forecast: 1000,
          periodStart: '2026-09-01',
          periodEnd: '2026-09-30',
        },
      },
      { line: 3, value: { kpiId: KPI, kpiType: 'OKR_"KEY"', actual: -0.7, target: 12 } },
      { line: 5, value: { kpiId: KPI, kpiType: 'BSC_KPI', actual: '4\r\n2', target: 'abc' } },
    ]);
    // Quoting is syntax (spreadsheets quote every cell): "12" is a number; "4⏎2" and abc are not, and
    // stay text, so validation names those fields.
    expect(problems).toEqual([{ line: 7, message: 'has 4 fields; the header has 7' }]);
  });

  it('CSV: unknown, repeated or missing columns are reported on the header line', () => {
    const { rows, problems } = parseMeasurements('kpiId,value,kpiId\n1,2,3', 'csv');
    expect(rows).toEqual([]);
    expect(problems).toEqual([
      { line: 1, message: expect.stringContaining('unknown column "value"') },
      { line: 1, message: 'column "kpiId" appears twice' },
      { line: 1, message: 'the header has no column "kpiType"' },
      { line: 1, message: 'the header has no column "actual"' },
    ]);
    expect(parseMeasurements('kpiId,kpiType,actual\n"open', 'csv').problems).toEqual([
      { line: 2, message: 'a quoted field is not closed' },
    ]);
  });
});

describe('kpi-push validation (the service’s schema)', () => {
  it('reports every problem of every row with its line and field, and repeated KPI periods', () => {
    const { valid, problems } = validateRows([
      { line: 2, value: { kpiId: KPI, kpiType: 'BSC_KPI', actual: 1, periodStart: '2026-09-01' } },
      { line: 3, value: { kpiId: 'x', kpiType: 'BSC_KPI', actual: 'abc', extra: 1 } },
      { line: 4, value: { kpiId: KPI, kpiType: 'BSC_KPI', actual: 2, periodEnd: '2026-09-30' } },
      { line: 5, value: 42 },
    ]);
    // Sent as the row gave it: the service completes the period from the KPI's own, which only it knows.
    expect(valid).toHaveLength(1);
    expect(valid[0]!.line).toBe(2);
    expect(JSON.parse(JSON.stringify(valid[0]!.measurement))).toEqual({
      kpiId: KPI,
      kpiType: 'BSC_KPI',
      actual: 1,
      periodStart: '2026-09-01',
    });
    expect(problems).toEqual([
      { line: 3, field: 'kpiId', message: 'must be the UUID of a KPI' },
      { line: 3, field: 'actual', message: 'must be a finite number' },
      { line: 3, field: 'extra', message: 'Unknown field' },
      { line: 4, message: 'same kpiId and period as line 2; the later row would replace it' },
      { line: 5, message: expect.stringContaining('(a row must be an object)') },
    ]);
  });
});

describe('kpi-push retry timing', () => {
  it('backs off exponentially with full jitter, capped', () => {
    expect(backoffDelay(1, () => 0)).toBe(0);
    expect(backoffDelay(1, () => 0.999999)).toBe(BACKOFF_BASE_MS - 1);
    expect(backoffDelay(3, () => 0.5)).toBe(2 * BACKOFF_BASE_MS);
    expect(backoffDelay(20, () => 0.999999)).toBe(BACKOFF_CAP_MS - 1);
  });

  it('reads Retry-After as seconds or an HTTP-date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(retryAfterMs('17', now)).toBe(17_000);
    expect(retryAfterMs('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});

/** A CSV from a spreadsheet: a locale's numbers and delimiter get a hint naming the value and the cause. */
describe('a CSV written by a spreadsheet', () => {
  it('names a number with a thousands separator or a decimal comma, quoted or split', () => {
    const quoted = parseMeasurements('kpiId,kpiType,actual\nk1,BSC_KPI,"1,234"\nk2,BSC_KPI,"12,5"\n', 'csv');
    expect(quoted.problems).toEqual([
      {
        line: 2,
        message:
          'actual: "1,234" is not a number as kpi-push reads it: write it without thousands separators and with "." for decimals (e.g. 1234 or 12.5)',
      },
      {
        line: 3,
        message:
          'actual: "12,5" is not a number as kpi-push reads it: write it without thousands separators and with "." for decimals (e.g. 1234 or 12.5)',
      },
    ]);
    const split = parseMeasurements('kpiId,kpiType,actual\nk1,BSC_KPI,1,234\n', 'csv');
    expect(split.problems).toEqual([
      {
        line: 2,
        message:
          'has 4 fields; the header has 3 (a number with a thousands separator, e.g. 1,234, splits into two fields: write 1234, or quote it)',
      },
    ]);
    expect(parseMeasurements('kpiId,kpiType,actual\nk1,BSC_KPI,1.234\n', 'csv')).toMatchObject({
      problems: [],
      rows: [{ value: { actual: 1.234 } }],
    });
  });

  it('names a semicolon delimiter, and reads it with --delimiter', () => {
    const text = 'kpiId;kpiType;actual\nk1;BSC_KPI;12.5\n';
    expect(parseMeasurements(text, 'csv').problems[0]?.message).toContain(
      `the header looks separated by ";": run with --delimiter ';'`,
    );
    expect(parseMeasurements(text, 'csv', ';')).toEqual({
      rows: [{ line: 2, value: { kpiId: 'k1', kpiType: 'BSC_KPI', actual: 12.5 } }],
      problems: [],
    });
  });
});
