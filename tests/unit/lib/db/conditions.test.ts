import { describe, expect, it } from 'vitest';
import { cancellationReasons, isConditionalCheckFailed } from '../../../../lib/db/conditions';

const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name }, extra);

describe('conditional-check failures at the repository boundary', () => {
  it('a refused conditional write is told from any other error', () => {
    expect(isConditionalCheckFailed(named('ConditionalCheckFailedException'))).toBe(true);
    expect(isConditionalCheckFailed(named('ValidationException'))).toBe(false);
    expect(isConditionalCheckFailed({ name: 'ConditionalCheckFailedException' })).toBe(false);
  });

  it("a cancelled transaction's reasons per item, 'None' where DynamoDB gave no code", () => {
    const cancelled = named('TransactionCanceledException', {
      CancellationReasons: [{ Code: 'None' }, {}, { Code: 'ConditionalCheckFailed' }],
    });
    expect(cancellationReasons(cancelled)).toEqual(['None', 'None', 'ConditionalCheckFailed']);
    expect(cancellationReasons(named('TransactionCanceledException'))).toEqual([]);
    expect(cancellationReasons(named('ConditionalCheckFailedException'))).toBeUndefined();
    // Only an Error is one: a plain object with that name is not.
    expect(
      cancellationReasons({ name: 'TransactionCanceledException', CancellationReasons: [] }),
    ).toBeUndefined();
  });
});
