import { describe, expect, it } from 'vitest';
import { shownAnswer } from '../../../lib/pull/answer';
import { evaluateBounded, runBudget } from '../../../lib/pull/expression';
import { pathOf } from '../../../web/integrations/answer';
import { previewFieldErrors } from '../../../web/integrations/field-errors';

describe('the path a clicked value of the answer fills in', () => {
  it('is JMESPath: identifiers bare, other names quoted, indexes in brackets', () => {
    expect(pathOf(['data', 'mrr'])).toBe('data.mrr');
    expect(pathOf(['rows', 0, 'i'])).toBe('rows[0].i');
    expect(pathOf([2])).toBe('[2]');
    expect(pathOf([0, 'a'])).toBe('[0].a');
    expect(pathOf(['meta', 'x-total'])).toBe('meta."x-total"');
    expect(pathOf(['a "b"', '1st'])).toBe('"a \\"b\\""."1st"');
  });

  it('finds the value it was made from, in the answer as the preview shows it', () => {
    const answer = { data: { 'x-total': 3, rows: [{ v: 1 }, { v: 2 }] }, 'a "b"': { '1st': true } };
    const { answer: shown } = shownAnswer(answer, []);
    expect(evaluateBounded(pathOf(['data', 'x-total']), shown, runBudget())).toBe(3);
    expect(evaluateBounded(pathOf(['data', 'rows', 1, 'v']), shown, runBudget())).toBe(2);
    expect(evaluateBounded(pathOf(['a "b"', '1st']), shown, runBudget())).toBe(true);
  });
});

describe('a preview’s binding problems in the form', () => {
  it('land under the field they name, a KPI’s under the KPI, the rest on the binding', () => {
    expect(
      previewFieldErrors([
        { problem: null },
        {
          problem:
            'actual: not a number (found a string; to_number() converts a numeric string); target: the path matched nothing',
        },
        { problem: 'no KPI of this organization with this id and kpiType (deleted?)' },
        { problem: 'periodEnd: must be the last day of a month' },
      ]),
    ).toEqual([
      {
        path: 'bindings[1].actual',
        message: 'not a number (found a string; to_number() converts a numeric string)',
      },
      { path: 'bindings[1].target', message: 'the path matched nothing' },
      {
        path: 'bindings[2].kpiId',
        message: 'no KPI of this organization with this id and kpiType (deleted?)',
      },
      { path: 'bindings[3]', message: 'periodEnd: must be the last day of a month' },
    ]);
  });
});
