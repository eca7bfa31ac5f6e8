import { describe, expect, it } from 'vitest';
import { setFields } from '../../../../lib/db/expressions';
import { countChange, type TenantCount } from '../../../../lib/db/tenant-counts';

describe('setFields', () => {
  it('sets defined fields and updatedAt, removes null ones, leaves undefined ones alone', () => {
    expect(setFields({ role: 'VIEWER', linkHash: null, name: undefined }, 'T')).toEqual({
      UpdateExpression: 'SET #role = :role, #updatedAt = :updatedAt REMOVE #linkHash',
      ExpressionAttributeNames: { '#role': 'role', '#linkHash': 'linkHash', '#updatedAt': 'updatedAt' },
      ExpressionAttributeValues: { ':role': 'VIEWER', ':updatedAt': 'T' },
    });
    expect(setFields({ role: 'ADMIN' }, 'T').UpdateExpression).toBe(
      'SET #role = :role, #updatedAt = :updatedAt',
    );
  });
});

describe('countChange', () => {
  const count: TenantCount = {
    type: 'USERCOUNT',
    key: (t) => ({ pk: `TENANT#${t}`, sk: 'USERCOUNT' }),
    subject: 'user count',
  };
  const db = { tableName: 'T' } as Parameters<typeof countChange>[0];

  it('holds a growing count to its maximum', () => {
    expect(countChange(db, count, 't', 1, 5).Update).toEqual({
      TableName: 'T',
      Key: { pk: 'TENANT#t', sk: 'USERCOUNT' },
      UpdateExpression: 'SET #type = :type ADD #count :delta',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
      ExpressionAttributeNames: { '#count': 'count', '#type': 'type' },
      ExpressionAttributeValues: { ':delta': 1, ':type': 'USERCOUNT', ':max': 5 },
    });
  });

  it('never refuses a shrinking count, nor one without a maximum', () => {
    expect(countChange(db, count, 't', -1, 5).Update?.ConditionExpression).toBeUndefined();
    expect(countChange(db, count, 't', -1, 5).Update?.ExpressionAttributeValues).toEqual({
      ':delta': -1,
      ':type': 'USERCOUNT',
    });
    expect(countChange(db, count, 't', 1, null).Update?.ConditionExpression).toBeUndefined();
  });
});
