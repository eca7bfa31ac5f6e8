import type { Database } from '../db/client';
import type { Tenant } from '../db/tenants';
import { findUserByEmail, getUserWithTenant, type User } from '../db/users';
import { AppError } from '../errors';
import { DUMMY_PASSWORD_HASH, verifyPassword } from './passwords';
import { ACCESS_TOKEN_TTL_SECONDS, type TokenService } from './tokens';

export interface SessionDeps {
  db: Database;
  tokens: TokenService;
  /** Injected so tests can observe that an unknown e-mail still costs one full verification. */
  verifyPassword?: typeof verifyPassword;
}

/** Spec 2.3. */
export interface LoginResult {
  token: string;
  refreshToken: string;
  expiresIn: number;
}

/** Spec 2.4: the refresh response carries no new refresh token. */
export interface RefreshResult {
  token: string;
  expiresIn: number;
}

const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 'The e-mail or password is wrong.');

/** Who may hold a token right now; checked at login and again at every refresh. */
const assertMayHoldToken = (user: User, tenant: Tenant) => {
  if (!tenant.active) throw new AppError('TENANT_INACTIVE', 'The organization of this account is inactive.');
  if (user.disabled) throw new AppError('USER_DISABLED', 'This account is disabled.');
};

const principalOf = (user: User) => ({
  userId: user.id,
  tenantId: user.tenantId,
  role: user.role,
  email: user.email,
});

/**
 * Spec 2.2/2.3. An unknown e-mail and a wrong password give the same answer after the same work:
 * the unknown case verifies against a dummy hash. Tenant and user state are checked only after the
 * password matched, so they reveal nothing to someone who does not know it.
 */
export const login = async (
  { db, tokens, verifyPassword: verify = verifyPassword }: SessionDeps,
  input: { email: string; password: string },
): Promise<LoginResult> => {
  const found = await findUserByEmail(db, input.email);
  const matches = await verify(input.password, found?.user.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!found || !matches) throw invalidCredentials();
  assertMayHoldToken(found.user, found.tenant);
  const principal = principalOf(found.user);
  const [token, refreshToken] = await Promise.all([
    tokens.issueAccessToken(principal),
    tokens.issueRefreshToken(principal),
  ]);
  return { token, refreshToken, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
};

/** Spec 2.4. Re-reads user and tenant so role changes and deactivations take effect at the next refresh. */
export const refresh = async ({ db, tokens }: SessionDeps, refreshToken: string): Promise<RefreshResult> => {
  const subject = await tokens.verifyRefreshToken(refreshToken);
  const found = await getUserWithTenant(db, subject.tenantId, subject.userId);
  if (!found) {
    throw new AppError('UNAUTHENTICATED', 'The account of this refresh token no longer exists.', {
      headers: { 'WWW-Authenticate': 'Bearer realm="strategy-service", error="invalid_token"' },
    });
  }
  assertMayHoldToken(found.user, found.tenant);
  return {
    token: await tokens.issueAccessToken(principalOf(found.user)),
    expiresIn: ACCESS_TOKEN_TTL_SECONDS,
  };
};
