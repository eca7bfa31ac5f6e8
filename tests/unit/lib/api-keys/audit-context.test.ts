import { describe, expect, it } from 'vitest';
import { auditContextOf } from '../../../../lib/api-keys/service';

/** lib/api-keys/service.ts `auditContextOf`: who the audit log names for each actor of a key change. */
describe('the actor of a key’s audit event', () => {
  const origin = { source: { ip: '203.0.113.9', userAgent: 'curl/8' }, requestId: 'r1' };

  it('names a user with their e-mail, an operator as the system in their name, secret scanning as GitHub’s', () => {
    expect(auditContextOf({ type: 'user', userId: 'u1', email: 'a@example.test' }, origin)).toEqual({
      actor: { type: 'user', id: 'u1', email: 'a@example.test' },
      ...origin,
    });
    expect(auditContextOf({ type: 'user', userId: 'u1' }, origin).actor).toEqual({
      type: 'user',
      id: 'u1',
      email: null,
    });
    expect(auditContextOf({ type: 'operator', name: 'alice' }, origin)).toEqual({
      actor: { type: 'system', id: 'operator:alice' },
      ...origin,
    });
    expect(
      auditContextOf({ type: 'secret-scanning', source: 'github', url: 'https://github.com/o/r' }, origin),
    ).toEqual({ actor: { type: 'github_secret_scanning', id: 'github' }, ...origin });
  });

  it('without one, names the service, and no request', () => {
    expect(auditContextOf(undefined)).toEqual({
      actor: { type: 'system', id: 'service' },
      source: null,
      requestId: null,
    });
  });
});
