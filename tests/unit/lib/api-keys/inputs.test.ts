import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { route as createApiKey } from '../../../../functions/create-api-key';
import { route as rollApiKey } from '../../../../functions/roll-api-key';
import { parseInput } from '../../../../lib/http/validation';
import { refusalOf } from '../../../support/refusal';

const createApiKeySchema = createApiKey.body!.schema;
const rollApiKeySchema = rollApiKey.body!.schema;

const errorsOf = (schema: typeof createApiKeySchema | typeof rollApiKeySchema, input: unknown) =>
  refusalOf(() => parseInput(schema, input)).errors;

describe('POST /api-keys body', () => {
  it('expiresAt: a future ISO 8601 date-time, stored in UTC; a past one or another format is refused', () => {
    const later = new Date(Date.now() + 86_400_000);
    const offset = `${later.toISOString().slice(0, 19)}+02:00`;
    expect(parseInput(createApiKeySchema, { name: 'k', expiresAt: offset }).expiresAt).toBe(
      new Date(offset).toISOString(),
    );
    expect(
      errorsOf(createApiKeySchema, { name: 'k', expiresAt: new Date(Date.now() - 1000).toISOString() }),
    ).toEqual([{ path: 'expiresAt', message: 'expiresAt must be in the future' }]);
    expect(errorsOf(createApiKeySchema, { name: 'k', expiresAt: '2040-01-01' })).toEqual([
      { path: 'expiresAt', message: 'expiresAt must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z' },
    ]);
  });

  it('kpiIds: each KPI once, whatever the case; a repeat names the first index', () => {
    const id = randomUUID();
    const other = randomUUID();
    expect(errorsOf(createApiKeySchema, { name: 'k', kpiIds: [id, other, id.toUpperCase(), other] })).toEqual(
      [
        { path: 'kpiIds[2]', message: 'repeats kpiIds[0]' },
        { path: 'kpiIds[3]', message: 'repeats kpiIds[1]' },
      ],
    );
    expect(parseInput(createApiKeySchema, { name: 'k', kpiIds: [id, other] }).kpiIds).toEqual([id, other]);
  });

  it('name: trimmed, 1 to 100 characters of valid Unicode', () => {
    expect(parseInput(createApiKeySchema, { name: '  CI  ' }).name).toBe('CI');
    expect(errorsOf(createApiKeySchema, { name: '   ' })).toEqual([
      { path: 'name', message: 'name is required' },
    ]);
    expect(errorsOf(createApiKeySchema, { name: 'a\ud800b' })).toEqual([
      { path: 'name', message: 'name must be valid Unicode text' },
    ]);
  });
});
