import { describe, expect, it } from 'vitest';
import {
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordProblem,
} from '../../../../lib/domain/password-policy';
import { userStatus } from '../../../../lib/domain/user';

const context = { email: 'Ana.Lima@Acme.example', tenantName: 'Acme Logistics' };

describe('password policy (NIST SP 800-63B)', () => {
  it('needs at least 12 characters, counted as code points', () => {
    expect(MIN_PASSWORD_LENGTH).toBe(12);
    expect(passwordProblem('a'.repeat(11), context)).toBe('password must be at least 12 characters');
    expect(passwordProblem('a'.repeat(12), context)).toBeUndefined();
    // Eleven emoji are 22 UTF-16 units but eleven characters.
    expect(passwordProblem('🔑'.repeat(11), context)).toMatch(/at least 12/);
    expect(passwordProblem('🔑'.repeat(12), context)).toBeUndefined();
    // NFC: a decomposed é is one character.
    expect(passwordProblem('e\u0301'.repeat(12), context)).toBeUndefined();
    expect(passwordProblem('e\u0301'.repeat(11), context)).toMatch(/at least 12/);
  });

  it('allows up to 1024 characters', () => {
    expect(passwordProblem('x'.repeat(MAX_PASSWORD_LENGTH), context)).toBeUndefined();
    expect(passwordProblem('x'.repeat(MAX_PASSWORD_LENGTH + 1), context)).toBe(
      'password must be at most 1024 characters',
    );
  });

  it('is not the e-mail address (nor its local part), in any case', () => {
    expect(passwordProblem('ana.lima@acme.example', context)).toBe('password must not be the e-mail address');
    expect(passwordProblem(' ANA.LIMA@ACME.EXAMPLE ', context)).toBe(
      'password must not be the e-mail address',
    );
    expect(passwordProblem('ana.lima', { ...context, email: 'ana.lima@x.example' })).toMatch(/at least 12/);
    expect(passwordProblem('ana.lima.silva', { ...context, email: 'ana.lima.silva@x.example' })).toBe(
      'password must not be the e-mail address',
    );
    expect(passwordProblem('ana.lima@acme.example!', context)).toBeUndefined();
  });

  it("is not the organization's name, in any case", () => {
    expect(passwordProblem('acme logistics', context)).toBe("password must not be the organization's name");
    expect(passwordProblem('ACME LOGISTICS', context)).toBe("password must not be the organization's name");
    expect(passwordProblem('acme logistics 2', context)).toBeUndefined();
  });

  it('has no composition rules: lower-case letters only, or spaces, pass', () => {
    expect(passwordProblem('correcthorsebattery', context)).toBeUndefined();
    expect(passwordProblem('            ', context)).toBeUndefined();
    expect(passwordProblem('123456789012', context)).toBeUndefined();
  });
});

describe('user status', () => {
  it('is invited without a password, deactivated while disabled, else active', () => {
    expect(userStatus({ disabled: false, passwordHash: null })).toBe('invited');
    expect(userStatus({ disabled: false, passwordHash: 'scrypt$…' })).toBe('active');
    expect(userStatus({ disabled: true, passwordHash: 'scrypt$…' })).toBe('deactivated');
    expect(userStatus({ disabled: true, passwordHash: null })).toBe('deactivated');
  });
});
