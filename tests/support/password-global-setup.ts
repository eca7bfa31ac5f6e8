import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { hashPassword } from '../../lib/auth/passwords';

declare module 'vitest' {
  export interface ProvidedContext {
    testPassword: { password: string; hash: string };
  }
}

/**
 * The password of every test user, hashed once per run: a scrypt hash with the production parameters
 * costs 100 ms to over a second on a loaded 2-core machine, and every test tenant has three users
 * (`npm run mutate` recreates them for each mutant). Login tests still verify it with the real scrypt.
 */
export async function setup(project: TestProject) {
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  project.provide('testPassword', { password, hash: await hashPassword(password) });
}
