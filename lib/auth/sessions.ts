import type { Database } from '../db/client';
import { clearLoginFailures, getLoginFailures, recordLoginFailure } from '../db/login-failures';
import type { Tenant } from '../db/tenants';
import { findUserByEmail, getUserWithTenant, normalizeEmail, type User } from '../db/users';
import { AppError, errorCatalog } from '../errors';
import { audit, logger } from '../logger';
import { emitMetric, UNKNOWN_PLAN } from '../metrics';
import { DUMMY_PASSWORD_HASH, verifyPassword } from './passwords';
import { ACCESS_TOKEN_TTL_SECONDS, type TokenService } from './tokens';

/** Brute-force protection of login (issue 5): failures per e-mail within a fixed window. */
export interface LoginLockoutPolicy {
  /** Failed logins after which further attempts for the e-mail get 429 until the window ends. */
  maxFailures: number;
  /** Length of the window, which opens at the first failure. */
  windowSeconds: number;
}

export interface SessionDeps {
  db: Database;
  tokens: TokenService;
  /** Injected so tests can observe that an unknown e-mail still costs one full verification. */
  verifyPassword?: typeof verifyPassword;
  /** Login lockout; see `LoginLockoutPolicy`. Required by `login`, unused by `refresh`. */
  lockout?: LoginLockoutPolicy;
  /** Epoch milliseconds; injectable so tests move through lockout windows without sleeping. */
  now?: () => number;
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

/** RFC 6585 §4 (429) with RFC 9110 §10.2.3 `Retry-After` in delay-seconds, rounded up. */
const tooManyAttempts = (retryAfterMs: number) => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError(
    'TOO_MANY_LOGIN_ATTEMPTS',
    `Too many failed logins for this e-mail. Try again in ${seconds} seconds.`,
    { headers: { 'Retry-After': String(seconds) } },
  );
};

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
 *
 * Lockout (issue 5): the failure counter of the e-mail is read in parallel with the user lookup, so a
 * login costs no extra round trip. A locked e-mail gets 429 before any password is verified, so the
 * lockout is not a password oracle. Failures of unknown e-mails are counted the same way, so neither
 * the 401 nor the 429 tells whether an account exists. A matching password clears the counter.
 */
export const login = async (
  deps: SessionDeps & { lockout: LoginLockoutPolicy },
  input: { email: string; password: string },
): Promise<LoginResult> => {
  const email = normalizeEmail(input.email);
  const known: { tenant?: Tenant } = {};
  try {
    const result = await authenticate(deps, email, input.password, known);
    // Tenant and user are on every line of the request once known (appended in `authenticate`).
    audit('login.succeeded', {});
    return result;
  } catch (error) {
    // Issue 14: every refused login is an audit line and a LoginFailed metric, by reason and plan.
    if (error instanceof AppError && error.status < 500) {
      const reason = errorCatalog[error.code].slug;
      audit('login.failed', { reason, email });
      emitMetric('LoginFailed', 1, { plan: known.tenant?.plan ?? UNKNOWN_PLAN, reason });
    }
    throw error;
  }
};

const authenticate = async (
  {
    db,
    tokens,
    verifyPassword: verify = verifyPassword,
    lockout: { maxFailures, windowSeconds },
    now: clock = Date.now,
  }: SessionDeps & { lockout: LoginLockoutPolicy },
  email: string,
  password: string,
  known: { tenant?: Tenant },
): Promise<LoginResult> => {
  const now = clock();
  const [found, failures] = await Promise.all([
    findUserByEmail(db, email),
    getLoginFailures(db, email, { windowSeconds, now }),
  ]);
  if (found) {
    known.tenant = found.tenant;
    logger.appendKeys({ tenantId: found.tenant.id, userId: found.user.id });
  }
  if (failures && failures.count >= maxFailures) throw tooManyAttempts(failures.windowEndsAt - now);
  const matches = await verify(password, found?.user.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!found || !matches) {
    // Awaited before answering: Lambda may freeze the container right after the response.
    const recorded = await recordLoginFailure(db, email, {
      windowSeconds,
      now,
      windowOpen: failures !== undefined,
    });
    // The failure that reaches the maximum locks the e-mail: one audit line per lockout.
    if (recorded.count === maxFailures) audit('login.locked', { email, failures: recorded.count });
    throw invalidCredentials();
  }
  // The password is proven, so earlier failures no longer matter, even if the account may not log in.
  if (failures) await clearLoginFailures(db, email);
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
