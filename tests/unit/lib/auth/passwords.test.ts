import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../../../lib/auth/passwords';

describe('password hashing', () => {
  it('stores scrypt with its parameters and a per-hash salt', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')]);
    expect(a).toMatch(/^scrypt\$N=32768,r=8,p=3\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(a.split('$')[2]).not.toBe(b.split('$')[2]);
    expect(a).not.toContain('correct horse');
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const hash = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsE', hash)).toBe(false);
  });

  it('refuses malformed stored hashes instead of throwing', async () => {
    expect(await verifyPassword('x', 'plaintext')).toBe(false);
  });

  it('the dummy hash uses the current parameters, so an unknown e-mail costs the same scrypt work', async () => {
    const params = (hash: string) => hash.split('$')[1];
    expect(params(DUMMY_PASSWORD_HASH)).toBe(params(await hashPassword('x')));
    expect(await verifyPassword('', DUMMY_PASSWORD_HASH)).toBe(false);
  });

  it('compares passwords in Unicode NFC, so a composed and a decomposed é are the same password', async () => {
    const hash = await hashPassword('caf\u00e9');
    expect(await verifyPassword('cafe\u0301', hash)).toBe(true);
  });

  it('verifies with the parameters stored in the hash, so they can be raised without a migration', async () => {
    const salt = Buffer.alloc(16, 7);
    const derived = scryptSync('old password', salt, 32, { N: 1024, r: 8, p: 1 });
    const old = `scrypt$N=1024,r=8,p=1$${salt.toString('base64')}$${derived.toString('base64')}`;
    expect(await verifyPassword('old password', old)).toBe(true);
    expect(await verifyPassword('other', old)).toBe(false);
    // The same hash read with other parameters would not match.
    expect(await verifyPassword('old password', old.replace('N=1024', 'N=2048'))).toBe(false);
    // Anything around the format, or a hash of another length, is refused rather than thrown.
    expect(await verifyPassword('old password', `x${old}`)).toBe(false);
    expect(await verifyPassword('old password', `${old}$`)).toBe(false);
    const short = `scrypt$N=1024,r=8,p=1$${salt.toString('base64')}$${derived.subarray(0, 16).toString('base64')}`;
    expect(await verifyPassword('old password', short)).toBe(false);
  });
});
