import { randomUUID } from 'node:crypto';
import { putAuditEvent } from '../db/audit-events';
import type { Database } from '../db/client';
import { createSession, deleteSession, getSessionState, type SessionState } from '../db/sessions';
import type { Tenant } from '../db/tenants';
import { findUserByEmail, normalizeEmail, recordSignIn, type User } from '../db/users';
import {
  type AuditDetails,
  type AuditEventType,
  auditEvent,
  NO_REQUEST,
  type RequestOrigin,
} from '../domain/audit-event';
import { AppError, errorCatalog } from '../errors';
import { audit, logAuditEvent, logger } from '../logger';
import { alertMetric, countMetric, UNKNOWN_PLAN } from '../metrics';
import { revokeAllSessions } from './accounts';
import { type LoginThrottlePolicy, loginThrottle, type Source, sourceOf } from './login-throttle';
import { DUMMY_PASSWORD_HASH, verifyPassword } from './passwords';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  invalidToken,
  type RefreshSubject,
  type TokenService,
  type UserPrincipal,
} from './tokens';

export type { LoginThrottlePolicy };

export interface SessionDeps {
  db: Database;
  tokens: TokenService;
  /** Injected so tests can observe that an unknown e-mail still costs one full verification. */
  verifyPassword?: typeof verifyPassword;
  /** Login's brute-force protection (./login-throttle.ts). Required by `login`, unused by `refresh`. */
  lockout?: LoginThrottlePolicy;
  /** Epoch milliseconds; injectable so tests move through lockout windows without sleeping. */
  now?: () => number;
}

/** Spec 2.3. */
export interface SessionTokens {
  token: string;
  refreshToken: string;
  expiresIn: number;
}

/** Spec 2.3, and the device token of this browser or client (./login-throttle.ts). */
export interface LoginResult extends SessionTokens {
  deviceToken: string;
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

const principalOf = (user: User, sessionId: string): UserPrincipal => ({
  userId: user.id,
  tenantId: user.tenantId,
  role: user.role,
  email: user.email,
  sessionId,
  tokenVersion: user.tokenVersion,
});

/**
 * Starts a session of a user who proved who they are: its record (valid as long as the refresh token,
 * the record's TTL) and the two tokens, both carrying the session's id and the user's token version.
 */
export const startSession = async (
  { db, tokens }: Pick<SessionDeps, 'db' | 'tokens'>,
  user: User,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<SessionTokens> => {
  const principal = principalOf(user, randomUUID());
  await createSession(db, {
    id: principal.sessionId,
    userId: user.id,
    tenantId: user.tenantId,
    expiresAt: nowSeconds + tokens.refreshTtlSeconds,
  });
  const [token, refreshToken] = await Promise.all([
    tokens.issueAccessToken(principal, nowSeconds),
    tokens.issueRefreshToken(principal, nowSeconds),
  ]);
  return { token, refreshToken, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
};

/** A login as the service receives it: the body (spec 2.2) and the request's source address. */
export interface LoginInput {
  email: string;
  password: string;
  /** API Gateway's `requestContext.identity.sourceIp`; absent on a direct invocation. */
  sourceIp?: string | null | undefined;
  /** The device token the browser (cookie) or client (body) presents; any text, checked here. */
  deviceToken?: string | undefined;
  /** Where the request came from and its id, for the audit events. */
  origin?: RequestOrigin | undefined;
}

/**
 * An audit event of a login: stored in the tenant of the account when the e-mail is one (the user as
 * actor and target), else only logged, with the e-mail as it was given, since no tenant is named.
 */
const recordLogin = async (
  db: Database,
  type: AuditEventType,
  { user, email, origin }: { user: User | undefined; email: string; origin: RequestOrigin },
  details: AuditDetails = {},
) => {
  if (!user) {
    audit(type, { email, sourceIp: origin.source?.ip ?? null, ...details });
    return;
  }
  const event = auditEvent(
    { actor: { type: 'user', id: user.id, email: user.email }, ...origin },
    { type, tenantId: user.tenantId, target: { type: 'user', id: user.id }, details },
  );
  await putAuditEvent(db, event);
  logAuditEvent(event);
};

/**
 * Spec 2.2/2.3. An unknown e-mail and a wrong password give the same answer after the same work: the
 * same reads (lib/db/users.ts), and a verification against a dummy hash. Tenant and user state are
 * checked only after the password matched, so they reveal nothing to someone who does not know it.
 *
 * Brute-force protection (./login-throttle.ts): the attempt is judged and reserved on its counters
 * before any password is verified, in parallel with the user lookup, so a login costs no extra
 * round trip; a refused attempt gets 429 without a verification, so the throttle is no password
 * oracle. Unknown e-mails are counted the same way, so neither the 401 nor the 429 tells whether an
 * account exists.
 */
export const login = async (
  deps: SessionDeps & { lockout: LoginThrottlePolicy },
  input: LoginInput,
): Promise<LoginResult> => {
  const email = normalizeEmail(input.email);
  const source = sourceOf(input.sourceIp);
  const origin = input.origin ?? NO_REQUEST;
  const known: { tenant?: Tenant; user?: User } = {};
  try {
    // Tenant and user are on every line of the request once known (appended in `authenticate`), which
    // also records the success.
    return await authenticate(
      deps,
      { email, password: input.password, source, deviceToken: input.deviceToken, origin },
      known,
    );
  } catch (error) {
    // Every refused login is an audit event and a LoginFailed metric, by reason and plan.
    if (error instanceof AppError && error.status < 500) {
      const reason = errorCatalog[error.code].slug;
      countMetric('LoginFailed', 1, { plan: known.tenant?.plan ?? UNKNOWN_PLAN, reason });
      await recordLogin(deps.db, 'login.failed', { user: known.user, email, origin }, { reason });
    }
    throw error;
  }
};

const authenticate = async (
  {
    db,
    tokens,
    verifyPassword: verify = verifyPassword,
    lockout,
    now: clock = Date.now,
  }: SessionDeps & { lockout: LoginThrottlePolicy },
  {
    email,
    password,
    source,
    deviceToken,
    origin,
  }: {
    email: string;
    password: string;
    source: Source;
    deviceToken?: string | undefined;
    origin: RequestOrigin;
  },
  known: { tenant?: Tenant; user?: User },
): Promise<LoginResult> => {
  const presented = deviceToken === undefined ? undefined : await verifiedDevice(tokens, deviceToken);
  const user = findUserByEmail(db, email);
  // A device token counts for the account it was given to, while the user's token version is the one
  // it carries: known once the user is read, in parallel with the counters. A failed read fails the
  // login below, whatever the counters say.
  const device = presented && {
    id: presented.deviceId,
    ofAccount: user.then(
      (found) => found?.user.id === presented.userId && found.user.tokenVersion === presented.tokenVersion,
    ),
  };
  const throttle = loginThrottle(db, lockout, { email, source, clock, device });
  // Both settle before anything is answered (Lambda may freeze the container right after the
  // response), and a refused attempt is still logged with its tenant and user when they are known.
  const [lookup, admission] = await Promise.allSettled([user, throttle.admit()]);
  if (lookup.status === 'rejected') throw lookup.reason;
  const found = lookup.value;
  if (found) {
    known.tenant = found.tenant;
    known.user = found.user;
    logger.appendKeys({ tenantId: found.tenant.id, userId: found.user.id });
  }
  const who = { user: found?.user, email, origin };
  if (admission.status === 'rejected') throw admission.reason;
  const attempt = admission.value;
  const matches = await verify(password, found?.user.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!found || !matches) {
    // Awaited before answering, like every write: the source's wait is in place for its next attempt.
    const outcome = await attempt.failed();
    if (outcome.lockedSource) {
      await recordLogin(db, 'login.locked', who, { failures: outcome.failures });
    }
    // A source guessing many e-mails names no tenant: a log line only.
    if (outcome.lockedAddress) audit('login.source-locked', { sourceIp: source });
    if (outcome.reachedCeiling) {
      // Only a distributed attack gets here: operators are alerted (serverless.yml custom.alarms).
      alertMetric('LoginCeilingReached');
      await recordLogin(db, 'login.ceiling-reached', who);
    }
    throw invalidCredentials();
  }
  // The password is proven: this source's failures for the e-mail no longer matter, even if the account
  // may not log in.
  await attempt.succeeded();
  assertMayHoldToken(found.user, found.tenant);
  const [session, newDeviceToken] = await Promise.all([
    startSession({ db, tokens }, found.user),
    tokens.issueDeviceToken({ userId: found.user.id, tokenVersion: found.user.tokenVersion }),
    // The people list shows it; in the same round trip as the session.
    recordSignIn(db, found.user, new Date(clock()).toISOString()),
  ]);
  // Once the session exists: a sign-in that failed to start one is no success.
  await recordLogin(db, 'login.succeeded', who);
  return { ...session, deviceToken: newDeviceToken };
};

/**
 * The device token's subject, or undefined for one that is not valid (forged, expired, of another
 * kind or key): a stale cookie never fails a login, it only counts for nothing. A key that cannot be
 * read is the service's fault and fails the request as everywhere else.
 */
const verifiedDevice = (tokens: TokenService, token: string) =>
  tokens.verifyDeviceToken(token).catch((error: unknown) => {
    if (error instanceof AppError) return undefined;
    throw error;
  });

const ended = (detail: string) => invalidToken(detail);

/**
 * Why a token of a session may no longer be used, or undefined while it may: the session was ended
 * (logout, or it expired), the account is gone, or its token version was raised since the token was
 * issued (disabled, demoted, signed out everywhere). The same rule for a refresh and for every JWT
 * request (./session-guard.ts).
 */
export const sessionRefusal = (
  subject: RefreshSubject,
  { user, session }: SessionState,
): AppError | undefined => {
  if (!session || session.userId !== subject.userId) return ended('The session has ended. Sign in again.');
  if (!user) return ended('The account of this token no longer exists.');
  if (user.tokenVersion !== subject.tokenVersion) return ended('The token has been revoked. Sign in again.');
  return undefined;
};

/**
 * Spec 2.4: a new access token, and no new refresh token. The session, the user and the tenant are
 * read in one round trip: a logout, a revocation, a role change, a disabled user or an inactive tenant
 * takes effect at the next refresh.
 */
export const refresh = async ({ db, tokens }: SessionDeps, refreshToken: string): Promise<RefreshResult> => {
  const subject = await tokens.verifyRefreshToken(refreshToken);
  const state = await getSessionState(db, subject);
  const refused = sessionRefusal(subject, state);
  if (refused) throw refused;
  const user = state.user as User;
  if (!state.tenant) throw ended('The account of this token no longer exists.');
  assertMayHoldToken(user, state.tenant);
  return {
    token: await tokens.issueAccessToken(principalOf(user, subject.sessionId)),
    expiresIn: ACCESS_TOKEN_TTL_SECONDS,
  };
};

/**
 * Ends the session of a refresh token (RFC 7009 §2.2: a token that is invalid, expired or already
 * revoked is no error, since the outcome the client wants holds). With `everywhere`, also every other
 * session of the user: their token version is raised, which only a token of a live session may do,
 * so a stolen token that was already revoked cannot sign its owner out again and again.
 */
export const logout = async (
  { db, tokens }: Pick<SessionDeps, 'db' | 'tokens'>,
  refreshToken: string,
  { everywhere = false, origin = NO_REQUEST }: { everywhere?: boolean; origin?: RequestOrigin } = {},
): Promise<void> => {
  let subject: RefreshSubject;
  try {
    subject = await tokens.verifyRefreshToken(refreshToken);
  } catch (error) {
    if (everywhere || !(error instanceof AppError)) throw error;
    return;
  }
  logger.appendKeys({ tenantId: subject.tenantId, userId: subject.userId });
  // The refresh token names the user, not their e-mail: known only where the user is read.
  let email: string | null = null;
  if (everywhere) {
    const state = await getSessionState(db, subject);
    const refused = sessionRefusal(subject, state);
    if (refused) throw refused;
    // Stryker disable next-line OptionalChaining: a session without its user was refused just above; the chain is for the types
    email = state.user?.email ?? null;
    await revokeAllSessions(db, subject.tenantId, subject.userId, {
      actor: { type: 'user', id: subject.userId, email },
      ...origin,
    });
  }
  const event = auditEvent(
    { actor: { type: 'user', id: subject.userId, email }, ...origin },
    {
      type: 'logout',
      tenantId: subject.tenantId,
      target: { type: 'user', id: subject.userId },
      details: { everywhere },
    },
  );
  if (await deleteSession(db, subject.sessionId, event)) logAuditEvent(event);
};
