/**
 * A KPI's targets as the Targets dialog edits them: one row per period of the KPI, and rows pasted
 * from a spreadsheet ("period<TAB>value" per line) read into those periods. Periods are the service's
 * own (lib/domain/calendar.ts), so a pasted date lands in the period the service will store.
 */
import { type KpiPeriod, nextPeriod, type PeriodSpan, periodContaining } from '../../lib/domain/calendar';

/** The most periods one `PUT /kpis/{kpiId}/targets` takes. */
export const MAX_TARGET_ROWS = 100;

/** How many periods the dialog offers for a KPI outside a cycle, from its current period on. */
const AHEAD: Record<KpiPeriod, number> = { day: 31, week: 13, month: 12, quarter: 4, year: 3 };

export interface TargetRow extends PeriodSpan {
  /** The target as typed: '' for none. */
  value: string;
}

/** Every period of `period` from the one holding `from` to the one holding `to`, at most `max`. */
export const periodsBetween = (period: KpiPeriod, from: string, to: string, max = MAX_TARGET_ROWS) => {
  const spans: PeriodSpan[] = [];
  for (let span = periodContaining(period, from); span.periodStart <= to && spans.length < max; ) {
    spans.push(span);
    span = nextPeriod(period, span);
  }
  return spans;
};

/**
 * The dialog's rows: each period of the KPI's cycle when it has one, else its current period and the
 * ones after it; with every period that already has a target, in period order, at most 100.
 */
export const targetRows = (
  period: KpiPeriod,
  targets: readonly (PeriodSpan & { value: number })[],
  { cycle, today }: { cycle: { startDate: string; endDate: string } | null; today: string },
): TargetRow[] => {
  const spans = cycle
    ? periodsBetween(period, cycle.startDate, cycle.endDate)
    : periodsBetween(period, today, '9999-12-31', AHEAD[period]);
  const rows = new Map<string, TargetRow>(spans.map((span) => [span.periodStart, { ...span, value: '' }]));
  for (const target of targets) {
    rows.set(target.periodStart, {
      periodStart: target.periodStart,
      periodEnd: target.periodEnd,
      value: String(target.value),
    });
  }
  return [...rows.values()]
    .sort((a, b) => a.periodStart.localeCompare(b.periodStart))
    .slice(0, MAX_TARGET_ROWS);
};

/**
 * A period as a spreadsheet writes it, read as the first day it names: `2026-11-30` (a day),
 * `2026-11` (a month), `2026-Q4` (a quarter), `2026-W49` (an ISO week), `2026` (a year); a range
 * ("2026-11-30 – 2026-12-06") is read by its first date. Undefined when none of these.
 */
export const firstDayOf = (text: string): string | undefined => {
  const cell = text.trim();
  const day = /^(\d{4}-\d{2}-\d{2})(?:\b|$)/.exec(cell)?.[1];
  if (day) return Number.isNaN(Date.parse(`${day}T00:00:00Z`)) ? undefined : day;
  const month = /^(\d{4})-(\d{2})$/.exec(cell);
  if (month) {
    const number = Number(month[2]);
    return number >= 1 && number <= 12 ? `${month[1]}-${month[2]}-01` : undefined;
  }
  const quarter = /^(\d{4})[- ]?Q([1-4])$/i.exec(cell);
  if (quarter) return `${quarter[1]}-${String((Number(quarter[2]) - 1) * 3 + 1).padStart(2, '0')}-01`;
  const week = /^(\d{4})-?W(\d{2})$/i.exec(cell);
  if (week) {
    const number = Number(week[2]);
    if (number < 1 || number > 53) return undefined;
    // ISO week 1 holds January 4th; its Monday, then whole weeks on.
    const jan4 = Date.UTC(Number(week[1]), 0, 4);
    const monday = jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * 86_400_000;
    return new Date(monday + (number - 1) * 7 * 86_400_000).toISOString().slice(0, 10);
  }
  if (/^\d{4}$/.test(cell)) return `${cell}-01-01`;
  return undefined;
};

/**
 * A number as a spreadsheet copies it: `1234.5`, `1,234.5` (thousands separated) or `12,5` (a decimal
 * comma). Undefined when it is none of these.
 */
export const numberOf = (text: string): number | undefined => {
  const cell = text.trim().replace(/\s/g, '');
  let plain = cell;
  if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(cell)) plain = cell.replace(/,/g, '');
  else if (/^-?\d+,\d+$/.test(cell)) plain = cell.replace(',', '.');
  if (!/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(plain)) return undefined;
  const value = Number(plain);
  return Number.isFinite(value) ? value : undefined;
};

export interface Pasted {
  /** A value per period, by periodStart, in the order pasted (a later line wins). */
  values: Map<string, PeriodSpan & { value: number }>;
  /** The lines that could not be read, by line number (1-based), in words. */
  problems: string[];
}

/** A line's first two cells: split at tabs, else at semicolons, else at its first comma. */
const cellsOf = (line: string): string[] => {
  if (line.includes('\t')) return line.split('\t').filter((cell) => cell.trim() !== '');
  if (line.includes(';')) return line.split(';');
  const comma = line.indexOf(',');
  return comma < 0 ? line.trim().split(/\s+/) : [line.slice(0, comma), line.slice(comma + 1)];
};

/**
 * Rows pasted from a spreadsheet: "period<TAB>value" per line (a semicolon or comma separates too
 * when there is no tab). Each period is read into the KPI's period that holds it; a first line that
 * is no row (a header such as "Period  Target") is skipped, and empty lines are.
 */
export const parsePastedTargets = (period: KpiPeriod, text: string): Pasted => {
  const values = new Map<string, PeriodSpan & { value: number }>();
  const problems: string[] = [];
  const lines = text.split(/\r\n|\n|\r/);
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const [periodCell = '', valueCell = ''] = cellsOf(line);
    const day = firstDayOf(periodCell);
    const value = numberOf(valueCell);
    if (day !== undefined && value !== undefined) {
      const span = periodContaining(period, day);
      values.delete(span.periodStart);
      values.set(span.periodStart, { ...span, value });
      return;
    }
    if (index === 0 && day === undefined && value === undefined) return;
    problems.push(
      day === undefined
        ? `Line ${index + 1}: “${periodCell}” is not a period (e.g. 2026-11-30, 2026-11, 2026-Q4, 2026-W49).`
        : `Line ${index + 1}: “${valueCell}” is not a number.`,
    );
  });
  return { values, problems };
};

/** The rows with the pasted values filled in; a pasted period without a row gets one, in period order. */
export const fillRows = (rows: readonly TargetRow[], pasted: Pasted['values']): TargetRow[] => {
  const byStart = new Map(rows.map((row) => [row.periodStart, row] as const));
  for (const [start, { periodEnd, value }] of pasted) {
    byStart.set(start, { periodStart: start, periodEnd, value: String(value) });
  }
  return [...byStart.values()].sort((a, b) => a.periodStart.localeCompare(b.periodStart));
};

/** What `PUT /kpis/{kpiId}/targets` is sent: the rows with a value, or the row that is no number. */
export const targetsBody = (
  rows: readonly TargetRow[],
):
  | { ok: true; targets: (PeriodSpan & { value: number })[] }
  | { ok: false; index: number; message: string } => {
  const targets: (PeriodSpan & { value: number })[] = [];
  for (const [index, row] of rows.entries()) {
    if (row.value.trim() === '') continue;
    const value = numberOf(row.value);
    if (value === undefined) return { ok: false, index, message: `“${row.value}” is not a number.` };
    targets.push({ periodStart: row.periodStart, periodEnd: row.periodEnd, value });
  }
  if (targets.length > MAX_TARGET_ROWS) {
    return { ok: false, index: MAX_TARGET_ROWS, message: `At most ${MAX_TARGET_ROWS} periods at a time.` };
  }
  return { ok: true, targets };
};
