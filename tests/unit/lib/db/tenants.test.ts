import { describe, expect, it } from 'vitest';
import { tenantMissing } from '../../../../lib/db/tenants';
import { cancelled } from '../../../support/faults';

describe('tenantMissing: a transaction whose last item checked that the tenant exists', () => {
  it('is NOT_FOUND naming the tenant when that last check failed, with the cancellation as its cause', () => {
    const error = cancelled('None', 'None', 'ConditionalCheckFailed');
    expect(tenantMissing(error, 't-1')).toMatchObject({
      code: 'NOT_FOUND',
      message: 'Tenant t-1 not found.',
      cause: error,
    });
  });

  it('is the error itself when another item failed, or when it is no cancelled transaction', () => {
    for (const error of [
      cancelled('None', 'ConditionalCheckFailed', 'None'),
      cancelled('ConditionalCheckFailed', 'None', 'None'),
      Object.assign(new Error('bad'), { name: 'ValidationException' }),
    ]) {
      expect(tenantMissing(error, 't-1')).toBe(error);
    }
  });
});
