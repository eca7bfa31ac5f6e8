import { describe, expect, it } from 'vitest';
import { retryAfterSeconds, retryInText, withoutRetryIn } from '../../../web/shared/format';

/** A 429 on a page counts its Retry-After down to 0, then says the action is open again. */
describe('the countdown of a 429', () => {
  it("reads Retry-After's delay-seconds, rounded up to at least 1; no header or a date is no countdown", () => {
    expect(retryAfterSeconds('5')).toBe(5);
    expect(retryAfterSeconds('0')).toBe(1);
    expect(retryAfterSeconds('1.2')).toBe(2);
    expect(retryAfterSeconds(null)).toBeNull();
    expect(retryAfterSeconds('')).toBeNull();
    expect(retryAfterSeconds('Wed, 02 Dec 2026 20:00:00 GMT')).toBeNull();
  });

  it('counts in words with the right plural, and says the action is open at 0', () => {
    expect(retryInText(3, 'sign in')).toBe('Try again in 3 seconds.');
    expect(retryInText(1, 'sign in')).toBe('Try again in 1 second.');
    expect(retryInText(0, 'sign in')).toBe('You can sign in again now.');
  });

  it("drops the service's fixed wait from its detail, which the countdown replaces", () => {
    expect(withoutRetryIn('Too many failed sign-ins from this address. Try again in 1 second.')).toBe(
      'Too many failed sign-ins from this address.',
    );
    expect(withoutRetryIn('Too many failed sign-ins. Try again in 42 seconds.')).toBe(
      'Too many failed sign-ins.',
    );
    expect(withoutRetryIn('Something else.')).toBe('Something else.');
  });
});
