import { describe, expect, it } from 'vitest';
import {
  fillRows,
  firstDayOf,
  MAX_TARGET_ROWS,
  numberOf,
  parsePastedTargets,
  periodsBetween,
  targetRows,
  targetsBody,
} from '../../../web/strategy/targets';

/** The KPI page's Targets dialog, without a browser: its rows per period and what a paste fills in. */
describe('the Targets dialog’s rows', () => {
  it('are the ISO weeks of the KPI’s cycle, Monday to Sunday, across a year’s end', () => {
    const rows = targetRows('week', [], {
      cycle: { startDate: '2025-12-24', endDate: '2026-01-10' },
      today: '2026-06-01',
    });
    expect(rows.map((row) => `${row.periodStart}/${row.periodEnd}`)).toEqual([
      '2025-12-22/2025-12-28',
      '2025-12-29/2026-01-04',
      '2026-01-05/2026-01-11',
    ]);
    expect(rows.every((row) => row.value === '')).toBe(true);
  });

  it('outside a cycle: the current period and the ones after it, with the targets already set', () => {
    const rows = targetRows('month', [{ periodStart: '2026-01-01', periodEnd: '2026-01-31', value: 80 }], {
      cycle: null,
      today: '2026-11-15',
    });
    expect(rows).toHaveLength(13);
    expect(rows[0]).toEqual({ periodStart: '2026-01-01', periodEnd: '2026-01-31', value: '80' });
    expect(rows[1]).toEqual({ periodStart: '2026-11-01', periodEnd: '2026-11-30', value: '' });
    expect(rows.at(-1)?.periodStart).toBe('2027-10-01');
    expect(targetRows('quarter', [], { cycle: null, today: '2026-11-15' }).map((r) => r.periodStart)).toEqual(
      ['2026-10-01', '2027-01-01', '2027-04-01', '2027-07-01'],
    );
  });

  it('are 100 at most, the most one PUT takes', () => {
    expect(periodsBetween('day', '2026-01-01', '2026-12-31')).toHaveLength(MAX_TARGET_ROWS);
    expect(
      targetRows('day', [], {
        cycle: { startDate: '2026-01-01', endDate: '2026-12-31' },
        today: '2026-01-01',
      }),
    ).toHaveLength(MAX_TARGET_ROWS);
    expect(periodsBetween('year', '2026-03-01', '2028-01-01').map((s) => s.periodStart)).toEqual([
      '2026-01-01',
      '2027-01-01',
      '2028-01-01',
    ]);
  });
});

describe('a paste from a spreadsheet', () => {
  it('reads period<TAB>value lines into the KPI’s periods, skipping a header and empty lines', () => {
    const { values, problems } = parsePastedTargets(
      'week',
      'Week\tTarget\r\n2026-11-30\t120\n\n2026-W50\t1,250.5\n2026-12-16\t130\n',
    );
    expect(problems).toEqual([]);
    expect([...values.values()]).toEqual([
      { periodStart: '2026-11-30', periodEnd: '2026-12-06', value: 120 },
      { periodStart: '2026-12-07', periodEnd: '2026-12-13', value: 1250.5 },
      { periodStart: '2026-12-14', periodEnd: '2026-12-20', value: 130 },
    ]);
  });

  it('names each line it cannot read, by number, and a later line for the same period wins', () => {
    const { values, problems } = parsePastedTargets(
      'month',
      '2026-01\t5\nsoon\t7\n2026-02\tlots\n2026-01-20\t6',
    );
    expect(problems).toEqual([
      'Line 2: “soon” is not a period (e.g. 2026-11-30, 2026-11, 2026-Q4, 2026-W49).',
      'Line 3: “lots” is not a number.',
    ]);
    expect([...values.values()]).toEqual([{ periodStart: '2026-01-01', periodEnd: '2026-01-31', value: 6 }]);
  });

  it('separates at semicolons, a comma or spaces when there is no tab', () => {
    const rows = (text: string) => [...parsePastedTargets('month', text).values.values()].map((v) => v.value);
    expect(rows('2026-01;12,5')).toEqual([12.5]);
    expect(rows('2026-01,12')).toEqual([12]);
    expect(rows('2026-01 14')).toEqual([14]);
    expect(rows('2026-01\t\t15')).toEqual([15]);
  });

  it('fills the rows it names and adds the periods that have none, in period order', () => {
    const rows = targetRows('month', [], {
      cycle: { startDate: '2026-01-01', endDate: '2026-02-28' },
      today: '2026-01-01',
    });
    const { values } = parsePastedTargets('month', '2026-03\t30\n2026-01\t10');
    expect(fillRows(rows, values)).toEqual([
      { periodStart: '2026-01-01', periodEnd: '2026-01-31', value: '10' },
      { periodStart: '2026-02-01', periodEnd: '2026-02-28', value: '' },
      { periodStart: '2026-03-01', periodEnd: '2026-03-31', value: '30' },
    ]);
  });
});

describe('periods and numbers as spreadsheets write them', () => {
  it('reads a day, a month, a quarter, an ISO week, a year and a range by its first day', () => {
    expect(firstDayOf('2026-11-30')).toBe('2026-11-30');
    expect(firstDayOf('2026-11-30 – 2026-12-06')).toBe('2026-11-30');
    expect(firstDayOf('2026-11')).toBe('2026-11-01');
    expect(firstDayOf('2026-Q4')).toBe('2026-10-01');
    expect(firstDayOf('2026q1')).toBe('2026-01-01');
    expect(firstDayOf('2026-W01')).toBe('2025-12-29');
    expect(firstDayOf('2026-W49')).toBe('2026-11-30');
    expect(firstDayOf('2027W01')).toBe('2027-01-04');
    expect(firstDayOf('2026')).toBe('2026-01-01');
    for (const wrong of ['2026-13', '2026-00', '2026-W54', '2026-W00', 'Q4', '', 'Nov 2026']) {
      expect(firstDayOf(wrong), wrong).toBeUndefined();
    }
  });

  it('reads plain numbers, thousands separators and a decimal comma, and nothing else', () => {
    expect(numberOf('1234.5')).toBe(1234.5);
    expect(numberOf(' -7 ')).toBe(-7);
    expect(numberOf('1,234,567.25')).toBe(1234567.25);
    expect(numberOf('12,5')).toBe(12.5);
    expect(numberOf('.5')).toBe(0.5);
    expect(numberOf('1e3')).toBe(1000);
    for (const wrong of ['', 'abc', '12a', '1.2.3', '--1', 'Infinity', '1e999']) {
      expect(numberOf(wrong), wrong).toBeUndefined();
    }
  });
});

describe('what a save sends', () => {
  it('is the rows with a value, as numbers; an empty row sends nothing', () => {
    expect(
      targetsBody([
        { periodStart: '2026-01-01', periodEnd: '2026-01-31', value: '10' },
        { periodStart: '2026-02-01', periodEnd: '2026-02-28', value: ' ' },
        { periodStart: '2026-03-01', periodEnd: '2026-03-31', value: '0' },
      ]),
    ).toEqual({
      ok: true,
      targets: [
        { periodStart: '2026-01-01', periodEnd: '2026-01-31', value: 10 },
        { periodStart: '2026-03-01', periodEnd: '2026-03-31', value: 0 },
      ],
    });
  });

  it('names the row that is no number, and refuses more than 100 periods', () => {
    expect(
      targetsBody([
        { periodStart: '2026-01-01', periodEnd: '2026-01-31', value: '1' },
        { periodStart: '2026-02-01', periodEnd: '2026-02-28', value: 'x' },
      ]),
    ).toEqual({ ok: false, index: 1, message: '“x” is not a number.' });
    const many = periodsBetween('day', '2026-01-01', '2026-12-31', 101).map((span) => ({
      ...span,
      value: '1',
    }));
    expect(many).toHaveLength(101);
    expect(targetsBody(many)).toEqual({ ok: false, index: 100, message: 'At most 100 periods at a time.' });
    expect(targetsBody(many.slice(0, 100))).toMatchObject({ ok: true });
  });
});
