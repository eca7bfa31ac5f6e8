import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { route as listKpis } from '../../../../functions/list-kpis';
import { header, json, noContent } from '../../../../lib/http/responses';
import { kpiIdParams, pageQuerySchema } from '../../../../lib/http/schemas';
import { parseInput } from '../../../../lib/http/validation';
import { pushQuerySchema } from '../../../../lib/push/measurement-schema';
import { refusalOf } from '../../../support/refusal';

describe('headers of a request (RFC 9110 §5.3)', () => {
  it('are found whatever their case, in headers and multiValueHeaders', () => {
    expect(header({ headers: { 'X-Api-Key': 'k' } }, 'x-api-key')).toBe('k');
    expect(header({ multiValueHeaders: { 'x-API-key': ['k'] } }, 'X-Api-Key')).toBe('k');
    expect(
      header({ headers: { other: 'v' }, multiValueHeaders: { other: ['v'] } }, 'x-api-key'),
    ).toBeUndefined();
    expect(header({ headers: null, multiValueHeaders: null }, 'x-api-key')).toBeUndefined();
  });

  it('one value sent under several spellings or repeated is that value; two values are a 400 naming it', () => {
    expect(
      header(
        { headers: { 'x-api-key': 'k', 'X-API-KEY': 'k' }, multiValueHeaders: { 'x-api-key': ['k', 'k'] } },
        'x-api-key',
      ),
    ).toBe('k');
    for (const event of [
      { headers: { 'x-api-key': 'a', 'X-Api-Key': 'b' } },
      { multiValueHeaders: { 'x-api-key': ['a', 'b'] } },
      { headers: { 'x-api-key': 'a' }, multiValueHeaders: { 'X-Api-Key': ['b'] } },
    ]) {
      expect(refusalOf(() => header(event, 'X-Api-Key'))).toMatchObject({
        code: 'MALFORMED_REQUEST',
        message: 'The X-Api-Key header is sent more than once with different values.',
      });
    }
  });

  it('ignores values that are not strings', () => {
    const event = { headers: { 'x-api-key': undefined }, multiValueHeaders: { 'x-api-key': undefined } };
    expect(header(event, 'x-api-key')).toBeUndefined();
    expect(header({ headers: { 'X-Api-Key': undefined, 'x-api-key': 'k' } }, 'x-api-key')).toBe('k');
    expect(header({ multiValueHeaders: { 'x-api-key': [undefined as never, 'k'] } }, 'x-api-key')).toBe('k');
  });
});

describe('responses', () => {
  it('JSON is never stored by a shared cache nor sniffed or rendered; headers add to the defaults', () => {
    expect(json(201, { a: 1 }, { Location: '/x' })).toEqual({
      statusCode: 201,
      headers: {
        'Content-Type': 'application/json',
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'",
        Location: '/x',
      },
      body: '{"a":1}',
    });
    expect(noContent({ 'X-Request-Id': 'r' })).toEqual({
      statusCode: 204,
      headers: { 'Cache-Control': 'no-store', 'X-Request-Id': 'r' },
      body: '',
    });
  });
});

const query = (
  schema: Parameters<typeof parseInput>[0],
  queryStringParameters: Record<string, string> | null,
) => parseInput(schema, queryStringParameters ?? {}, { what: 'query string' });
const parsePageQuery = ({
  queryStringParameters,
}: {
  queryStringParameters: Record<string, string> | null;
}) => query(pageQuerySchema, queryStringParameters);
const parseKpiListQuery = ({
  queryStringParameters,
}: {
  queryStringParameters: Record<string, string> | null;
}) => query(listKpis.query!, queryStringParameters);

describe('query strings and path parameters', () => {
  it('?limit= defaults to 100, is 1 to 1000, and a cursor is passed on', () => {
    expect(parsePageQuery({ queryStringParameters: null })).toEqual({ limit: 100 });
    expect(parsePageQuery({ queryStringParameters: { limit: '1000', cursor: 'c' } })).toEqual({
      limit: 1000,
      cursor: 'c',
    });
    expect(refusalOf(() => parsePageQuery({ queryStringParameters: { limit: '0' } }))).toMatchObject({
      message: 'The query string has 1 invalid field(s).',
      errors: [{ path: 'limit', message: 'limit must be at least 1' }],
    });
  });

  it('?include=activity allows a page of at most 100 KPIs', () => {
    expect(parseKpiListQuery({ queryStringParameters: { include: 'activity', limit: '100' } })).toMatchObject(
      {
        limit: 100,
        include: 'activity',
      },
    );
    expect(
      refusalOf(() => parseKpiListQuery({ queryStringParameters: { include: 'activity', limit: '101' } })),
    ).toMatchObject({
      message: 'The query string has 1 invalid field(s).',
      errors: [{ path: 'limit', message: 'limit must be at most 100 with include=activity' }],
    });
    expect(parseKpiListQuery({ queryStringParameters: { limit: '101' } })).toMatchObject({ limit: 101 });
    expect(parseKpiListQuery({ queryStringParameters: null })).toEqual({ limit: 100 });
  });

  it('a path id that is not a UUID is a 400 naming the parameter, before any read', () => {
    const id = randomUUID();
    const path = (pathParameters: Record<string, string>) =>
      parseInput(kpiIdParams, pathParameters, { what: 'path' });
    expect(path({ kpiId: id })).toEqual({ kpiId: id });
    for (const kpiId of ['x'.repeat(3000), 'not-a-uuid', '']) {
      expect(refusalOf(() => path({ kpiId }))).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: 'The path has 1 invalid field(s).',
        errors: [{ path: 'kpiId', message: expect.any(String) }],
      });
    }
    expect(refusalOf(() => path({}))).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'kpiId' }],
    });
  });

  it('?dryRun= is true or false', () => {
    expect(parseInput(pushQuerySchema, { dryRun: 'true' })).toEqual({ dryRun: true });
    expect(parseInput(pushQuerySchema, { dryRun: 'false' })).toEqual({ dryRun: false });
    expect(parseInput(pushQuerySchema, {})).toEqual({});
  });
});
