import { describe, expect, it } from 'vitest';
import { linesText } from '../../../clients/kpi-push/push';

describe('linesText: the lines a message names', () => {
  it('names one line, a run of lines, and separate runs', () => {
    expect(linesText([4])).toBe('line 4');
    expect(linesText([4, 5, 6])).toBe('lines 4-6');
    expect(linesText([9, 2, 4, 5, 6])).toBe('lines 2, 4-6 and 9');
    expect(linesText([3, 7])).toBe('lines 3 and 7');
  });

  it('names a line once however often it is given', () => {
    expect(linesText([5, 5])).toBe('line 5');
  });
});
