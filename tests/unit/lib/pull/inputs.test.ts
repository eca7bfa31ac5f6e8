import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { MAX_PULL_HEADERS } from '../../../../lib/domain/pull-integration';
import { authInputSchema, headersField } from '../../../../lib/pull/inputs';

/** What the request schemas of a pull integration refuse, and the message each refusal names. */
const problems = (schema: z.ZodMiniType, value: unknown) => {
  const parsed = z.safeParse(schema, value);
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
};

const headers = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`X-Header-${i}`, 'v']));

describe('an integration’s headers', () => {
  it(`are at most ${MAX_PULL_HEADERS}`, () => {
    expect(problems(headersField, headers(MAX_PULL_HEADERS))).toEqual([]);
    expect(problems(headersField, headers(MAX_PULL_HEADERS + 1))).toEqual([
      `at most ${MAX_PULL_HEADERS} headers`,
    ]);
  });

  it('set no credentials, in any spelling, even beside others', () => {
    const message = 'must not set Authorization, Cookie, Host: credentials go in auth';
    for (const name of ['AUTHORIZATION', 'Cookie', 'host']) {
      expect(problems(headersField, { 'X-Team': 'finance', [name]: 'x' }), name).toEqual([message]);
    }
  });

  it('name each header once, whatever its case', () => {
    expect(problems(headersField, { 'X-Team': 'a', 'x-team': 'b' })).toEqual([
      'must not name a header twice',
    ]);
    expect(problems(headersField, { 'X-Team': 'a', 'X-Region': 'b' })).toEqual([]);
  });
});

describe('header authentication', () => {
  it('does not carry its secret in Cookie or Host, in any spelling', () => {
    for (const name of ['Cookie', 'HOST']) {
      expect(problems(authInputSchema, { type: 'header', name, value: 'secret' }), name).toEqual([
        'must not be Cookie or Host',
      ]);
    }
    expect(problems(authInputSchema, { type: 'header', name: 'X-Api-Key', value: 'secret' })).toEqual([]);
  });
});
