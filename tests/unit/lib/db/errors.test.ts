import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancellationReasons, isConditionalCheckFailed } from '../../../../lib/db/errors';
import { cancelled } from '../../../support/faults';

/** DynamoDB's refusals as lib/db reads them (lib/db/errors.ts). */
describe('the reasons of a cancelled transaction', () => {
  it('are one code per item, None for an item that had no problem', () => {
    expect(cancellationReasons(cancelled('None', 'ConditionalCheckFailed'))).toEqual([
      'None',
      'ConditionalCheckFailed',
    ]);
    const withoutCode = new TransactionCanceledException({
      message: 'Transaction cancelled',
      $metadata: {},
      CancellationReasons: [{}],
    });
    expect(cancellationReasons(withoutCode)).toEqual(['None']);
  });

  it('are none for any other error: a refused single write is no cancelled transaction', () => {
    const refused = new ConditionalCheckFailedException({
      message: 'The conditional request failed',
      $metadata: {},
    });
    expect(cancellationReasons(refused)).toBeUndefined();
    expect(cancellationReasons(new Error('TransactionCanceledException'))).toBeUndefined();
    expect(cancellationReasons('TransactionCanceledException')).toBeUndefined();
    expect(isConditionalCheckFailed(refused)).toBe(true);
    expect(isConditionalCheckFailed(cancelled('ConditionalCheckFailed'))).toBe(false);
  });
});
