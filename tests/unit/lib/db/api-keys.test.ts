import { describe, expect, it } from 'vitest';
import { toApiKey } from '../../../../lib/db/api-keys';

/** A key item as stored, with the audit attributes under test. */
const item = (extra: Record<string, unknown>) =>
  toApiKey({
    id: 'k',
    tenantId: 't',
    name: 'n',
    prefix: 'p',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  });

describe('a stored key item read back (audit trail)', () => {
  it('reads a user actor, an operator actor, and the bare user id of keys made before actors had types', () => {
    expect(item({ createdBy: { type: 'user', userId: 'u1' } }).createdBy).toEqual({
      type: 'user',
      userId: 'u1',
    });
    expect(item({ revokedBy: { type: 'operator', name: 'ops' } }).revokedBy).toEqual({
      type: 'operator',
      name: 'ops',
    });
    expect(item({ rolledBy: 'u2' }).rolledBy).toEqual({ type: 'user', userId: 'u2' });
  });

  it('reads a secret-scanning actor with the public URL where the key was found', () => {
    const url = 'https://github.com/octo/repo/blob/abc/config.env';
    expect(item({ revokedBy: { type: 'secret-scanning', source: 'github', url } }).revokedBy).toEqual({
      type: 'secret-scanning',
      source: 'github',
      url,
    });
  });

  it('reads anything else as no actor, never as a half-formed one', () => {
    for (const createdBy of [
      undefined,
      null,
      7,
      { type: 'user' },
      { type: 'user', userId: 5 },
      { type: 'user', name: 'ops' },
      { type: 'operator' },
      { type: 'operator', userId: 'u1' },
      { type: 'robot', userId: 'u1', name: 'x' },
      { type: 'secret-scanning', url: 'https://github.com/a/b' },
      { type: 'secret-scanning', source: 'gitlab', url: 'https://gitlab.com/a/b' },
      { type: 'secret-scanning', source: 'github' },
    ]) {
      expect(item({ createdBy }).createdBy).toBeNull();
    }
  });

  it('reads a roll neighbour only when it has both id and prefix', () => {
    expect(item({ replacedBy: { id: 'k2', prefix: 'ab' } }).replacedBy).toEqual({ id: 'k2', prefix: 'ab' });
    expect(item({ replaces: { id: 'k0' } }).replaces).toBeNull();
    expect(item({ replaces: { prefix: 'ab' } }).replaces).toBeNull();
    expect(item({}).replacedBy).toBeNull();
  });
});
