import { describe, expect, it } from 'vitest';
import { toApiKey } from '../../../../lib/db/api-keys';
import { MalformedItem } from '../../../../lib/db/errors';

/** A key item as stored, with the audit attributes under test. */
const stored = (extra: Record<string, unknown>) => ({
  pk: 'APIKEY#0f1e2d3c',
  sk: 'APIKEY',
  type: 'APIKEY',
  id: '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f',
  tenantId: '01936e00-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
  name: 'n',
  prefix: 'skm_abcd',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});
const item = (extra: Record<string, unknown>) => toApiKey(stored(extra));

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

  it('reads no actor as null, and anything else as a malformed item, never as a half-formed actor', () => {
    expect(item({}).createdBy).toBeNull();
    expect(item({ createdBy: null }).createdBy).toBeNull();
    for (const createdBy of [
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
      expect(() => item({ createdBy }), JSON.stringify(createdBy)).toThrow(MalformedItem);
    }
  });

  it('reads a roll neighbour only when it has both id and prefix; a half one is a malformed item', () => {
    const neighbour = '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e20';
    expect(item({ replacedBy: { id: neighbour, prefix: 'ab' } }).replacedBy).toEqual({
      id: neighbour,
      prefix: 'ab',
    });
    expect(item({}).replacedBy).toBeNull();
    expect(() => item({ replaces: { id: neighbour } })).toThrow(MalformedItem);
    expect(() => item({ replaces: { prefix: 'ab' } })).toThrow(MalformedItem);
  });

  it('reads its hash from its key, and its scope from its stored form', () => {
    const kpiId = '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e21';
    const scoped = stored({ kpiScope: Buffer.from(kpiId.replaceAll('-', ''), 'hex').toString('base64url') });
    expect(toApiKey(scoped).kpiIds).toEqual([kpiId]);
    expect(item({}).kpiIds).toBeNull();
    expect(item({}).lastUsedAt).toBeNull();
  });
});
