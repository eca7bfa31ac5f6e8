import { describe, expect, it } from 'vitest';
import { apiKeyUsageDays, emptyUsageDay } from '../../../../lib/db/api-key-usage';
import { attemptCounters } from '../../../../lib/db/login-attempts';
import { pullUsageDays } from '../../../../lib/db/pull-integrations';
import { RUN_ERROR_CLASSES } from '../../../../lib/domain/pull-integration';

/**
 * The counter items written by atomic updates (a key's usage day, an integration's usage day, a login
 * counter) as their declarations write them whole: the item a fixture or an import gets, read back as
 * it was.
 */
describe('a key’s usage day, written whole', () => {
  it('is keyed by the key and the day, expires with the day, stores a counter per refusal, and reads back', () => {
    const day = {
      ...emptyUsageDay('2026-03-04'),
      requests: 5,
      accepted: 3,
      refused: { ...emptyUsageDay('2026-03-04').refused, source: 2 },
      keyHash: 'abc',
    };
    const item = apiKeyUsageDays.toItem(day);
    expect(item).toMatchObject({
      pk: 'APIKEY#abc',
      sk: 'USAGE#2026-03-04',
      type: 'USAGE',
      ttl: expect.any(Number),
      refused_source: 2,
    });
    expect(item.ttl).toBeGreaterThan(Date.parse('2026-03-04T00:00:00Z') / 1000);
    // The key hash is the item's address, not a field a read answers.
    const { keyHash: _keyHash, ...read } = day;
    expect(apiKeyUsageDays.fromItem(item)).toEqual(read);
  });
});

describe('an integration’s usage day, written whole', () => {
  it('stores a counter per error class and reads back', () => {
    const failures = Object.fromEntries(RUN_ERROR_CLASSES.map((c, i) => [c, i])) as Record<
      (typeof RUN_ERROR_CLASSES)[number],
      number
    >;
    const day = { date: '2026-03-04', runs: 9, measurements: 4, failed: 5, failures, integrationId: 'i1' };
    const item = pullUsageDays.toItem(day);
    for (const [c, n] of Object.entries(failures)) expect(item[`failed_${c}`]).toBe(n);
    const { integrationId: _integrationId, ...read } = day;
    expect(pullUsageDays.fromItem(item)).toEqual(read);
  });
});

describe('a login counter, written whole', () => {
  it('keeps the key the caller gave it and reads back', () => {
    const counter = {
      pk: 'LOGIN#a@example.test',
      sk: 'FAILURES',
      count: 2,
      windowStart: 10,
      retryAt: 0,
      ttl: 99,
    };
    const item = attemptCounters.toItem(counter);
    expect(item).toMatchObject({ pk: counter.pk, sk: counter.sk, type: 'LOGIN_ATTEMPTS' });
    expect(attemptCounters.fromItem(item)).toEqual(counter);
  });
});
