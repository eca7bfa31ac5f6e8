import { describe, expect, it } from 'vitest';
import { bindingErrors, errorsAt } from '../../../web/integrations/field-errors';

/** The integration form shows each problem of a 400 under the field its `errors` path names. */
describe("the integration form's field errors", () => {
  const errors = [
    { path: 'measurements[0].actual', message: 'is not a JMESPath expression: unexpected token' },
    { path: 'measurements[1].target', message: 'too deep' },
    { path: 'measurements[1].kpiId', message: 'same KPI as measurements[0]' },
    { path: 'measurements[1]', message: 'needs a value' },
    { path: 'measurements[1].period', message: 'not the KPI period' },
    { path: 'measurements[10].actual', message: 'of another binding' },
    { path: 'auth.tokenUrl', message: 'not https' },
  ];

  it('puts a syntax error under the binding field it belongs to, and nowhere else', () => {
    expect(bindingErrors(errors, 'measurements', 0)).toEqual({
      kpiId: null,
      actual: 'is not a JMESPath expression: unexpected token',
      target: null,
      forecast: null,
      rest: null,
    });
  });

  it("keeps the binding's own problems and unknown members for its own line", () => {
    expect(bindingErrors(errors, 'measurements', 1)).toEqual({
      kpiId: 'same KPI as measurements[0]',
      actual: null,
      target: 'too deep',
      forecast: null,
      rest: 'needs a value not the KPI period',
    });
  });

  it('reads a field with what lies within it, never a field that only shares its prefix', () => {
    expect(errorsAt(errors, 'auth')).toBe('not https');
    expect(errorsAt(errors, 'measurements[1]')).toBe(
      'too deep same KPI as measurements[0] needs a value not the KPI period',
    );
    expect(errorsAt(errors, 'measurements[1].actual')).toBeNull();
    expect(errorsAt(errors, 'name')).toBeNull();
  });
});
