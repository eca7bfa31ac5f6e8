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
});
