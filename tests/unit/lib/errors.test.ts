import { describe, expect, it } from 'vitest';
import { AppError, errorCatalog, problemType } from '../../../lib/errors';

describe('error catalog', () => {
  it('gives every code its own problem type', () => {
    const types = Object.keys(errorCatalog).map((code) => problemType(code as keyof typeof errorCatalog));
    expect(new Set(types).size).toBe(types.length);
  });

  it('AppError carries its status, name and cause', () => {
    const cause = new Error('low level');
    const error = new AppError('NOT_FOUND', 'KPI x not found.', { cause });
    expect(error).toMatchObject({ name: 'AppError', status: 404, message: 'KPI x not found.', cause });
  });
});
