import { createHash, randomBytes } from 'node:crypto';
import { putAuditEvent } from '../db/audit-events';
import type { Database } from '../db/client';
import { retryingConflicts, WriteConflict } from '../db/errors';
import type { PageRequest } from '../db/pagination';
import { getTenant } from '../db/tenants';
import {
  getUserLink,
  type LinkPurpose,
  newUserLink,
  type UserLink,
  userLinkPut,
  userLinkUse,
} from '../db/user-links';
import {
  AdminGone,
  EmailTaken,
  getUser,
  getUserWithTenant,
  inviteUser,
  listUsers,
  setPasswordByLink,
  type User,
  UserLimitReached,
  type UserPatch,
  writeUserChange,
} from '../db/users';
import {
  type AuditContext,
  type AuditDetails,
  type AuditEventType,
  auditEvent,
  NO_REQUEST,
  type RequestOrigin,
  type TenantAuditEvent,
} from '../domain/audit-event';
import { passwordProblem } from '../domain/password-policy';
import { type Plan, USER_LIMITS } from '../domain/plan';
import type { Tenant } from '../domain/tenant';
import { type Role, userStatus } from '../domain/user';
import { AppError } from '../errors';
import { audit, logAuditEvent } from '../logger';
import { revocationReason } from './accounts';
import { type LoginThrottlePolicy, loginThrottle, sourceOf } from './login-throttle';
import { hashPassword, verifyPassword } from './passwords';
import { type SessionTokens, startSession } from './sign-in';
import type { TokenService, UserPrincipal } from './tokens';

/**
 * The people of a tenant, managed by its ADMINs: invitations, roles, deactivation and one-time links
 * that set a password. A tenant keeps at least one active ADMIN; the plan caps the users that are not
 * deactivated; every change is an audit event written with it.
 */

/** How long an invitation or a reset link stays valid. */
export const LINK_VALID_SECONDS = 7 * 86_400;

/**
 * A link's token: `sul_` and 43 base64url characters of 256 random bits. Only its SHA-256 is stored
 * (like an API key's: a random secret of that size needs no slow hash); the prefix lets secret
 * scanners and the log checks recognise one.
 */
export const LINK_TOKEN_PREFIX = 'sul_';
export const LINK_TOKEN_PATTERN = /sul_[A-Za-z0-9_-]{43}/;

export const generateLinkToken = (random: (size: number) => Buffer = randomBytes): string =>
  `${LINK_TOKEN_PREFIX}${random(32).toString('base64url')}`;

// Stryker disable next-line StringLiteral: Hash#update reads a string as UTF-8 when no encoding is named
export const hashLinkToken = (token: string): string =>
  createHash('sha256').update(token, 'utf8').digest('hex');

/** The page a link opens: the token is in the fragment, which browsers never send to a server. */
export const ACCEPT_PAGE_PATH = '/platform/accept';
export const linkUrl = (origin: string, token: string) => `${origin}${ACCEPT_PAGE_PATH}#token=${token}`;

/** A new link, shown once: the token, the URL that carries it and until when it works. */
export interface IssuedLink {
  token: string;
  expiresAt: string;
  purpose: LinkPurpose;
}

const notFound = (userId: string) => new AppError('NOT_FOUND', `User ${userId} not found.`);

const userLimitReached = (plan: Plan, cause: unknown) =>
  new AppError(
    'USER_LIMIT_REACHED',
    `The ${plan} plan allows ${USER_LIMITS[plan]} users that are not deactivated and all places are taken. Deactivate someone or upgrade the plan.`,
    { extensions: { limit: USER_LIMITS[plan], plan }, cause },
  );

const lastAdmin = () =>
  new AppError(
    'LAST_ADMIN',
    'This is the last active ADMIN of the organization: make someone else ADMIN first.',
  );

const event = (
  context: AuditContext,
  type: AuditEventType,
  user: Pick<User, 'id' | 'tenantId'>,
  details: AuditDetails = {},
): TenantAuditEvent =>
  auditEvent(context, { type, tenantId: user.tenantId, target: { type: 'user', id: user.id }, details });

const tenantOf = async (db: Database, tenantId: string): Promise<Tenant> => {
  const tenant = await getTenant(db, tenantId);
  if (!tenant) throw new AppError('NOT_FOUND', `Tenant ${tenantId} not found.`);
  return tenant;
};

/** The tenant's users, oldest first, a page at a time. */
export const listPeople = (db: Database, tenantId: string, page: PageRequest) =>
  listUsers(db, tenantId, page);

/**
 * The tenant's active users, who may own a KPI: a page of its users with the invited and the
 * deactivated left out, so a page may hold fewer than asked for and still have a cursor.
 */
export const listActivePeople = async (db: Database, tenantId: string, page: PageRequest) => {
  const read = await listUsers(db, tenantId, page);
  return { ...read, items: read.items.filter((user) => userStatus(user) === 'active') };
};

/**
 * Invites someone: an invited user (no password yet) and a one-time link to set one, valid 7 days.
 * The e-mail signs in to one account over all tenants, so an address that has one already is 409.
 */
export const invitePerson = async (
  db: Database,
  input: { tenantId: string; email: string; role: Role; name?: string | null | undefined },
  context: AuditContext,
): Promise<{ user: User; link: IssuedLink }> => {
  const tenant = await tenantOf(db, input.tenantId);
  const token = generateLinkToken();
  const tokenHash = hashLinkToken(token);
  try {
    const { user, link } = await retryingConflicts('user', () =>
      inviteUser(
        db,
        { ...input, invitedBy: { id: context.actor.id, email: context.actor.email ?? null } },
        (made) =>
          newUserLink(
            { tokenHash, tenantId: made.tenantId, userId: made.id, purpose: 'invitation' },
            LINK_VALID_SECONDS,
          ),
        USER_LIMITS[tenant.plan],
        (made) => {
          const invited = event(context, 'user.invited', made, { email: made.email, role: made.role });
          logAuditEvent(invited);
          return invited;
        },
      ),
    );
    return { user, link: { token, expiresAt: link.expiresAt, purpose: link.purpose } };
  } catch (error) {
    if (error instanceof UserLimitReached) throw userLimitReached(tenant.plan, error);
    if (error instanceof EmailTaken) {
      const email = input.email.trim().toLowerCase();
      throw new AppError(
        'EMAIL_TAKEN',
        error.ofTenant
          ? `${email} is already a user of this organization.`
          : `${email} already signs in to another organization; one address signs in to one organization. Invite another address of this person.`,
      );
    }
    throw error;
  }
};

/** Whether the user counts as an active ADMIN: the role, a password set, not deactivated. */
const isActiveAdmin = (user: User) => user.role === 'ADMIN' && !user.disabled && user.passwordHash !== null;

/** Another active ADMIN of the tenant than `userId`, read a page at a time (the plan caps the users). */
const anotherActiveAdmin = async (
  db: Database,
  tenantId: string,
  userId: string,
): Promise<User | undefined> => {
  let cursor: string | undefined;
  do {
    const page = await listUsers(db, tenantId, { limit: 100, cursor });
    const other = page.items.find((user) => user.id !== userId && isActiveAdmin(user));
    if (other) return other;
    cursor = page.nextCursor;
  } while (cursor);
  return undefined;
};

/** How often a change is decided again when what it was based on changed before the write. */
const MAX_TRIES = 5;

/**
 * Changes a user's role or deactivates or reactivates them. A demotion or a deactivation ends every
 * session of the user (their token version raised, ./session-guard.ts). The last active ADMIN can be
 * neither demoted nor deactivated: the write is conditioned on another active ADMIN staying one, so two
 * ADMINs demoting each other at once cannot both succeed. Deactivation frees the user's place on the
 * plan and closes their open link; reactivation takes a place again.
 */
export const changePerson = async (
  db: Database,
  input: { tenantId: string; userId: string; role?: Role | undefined; active?: boolean | undefined },
  context: AuditContext,
): Promise<User> => {
  const tenant = await tenantOf(db, input.tenantId);
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const current = await getUser(db, input.tenantId, input.userId);
    if (!current) throw notFound(input.userId);
    const patch: UserPatch = {};
    if (input.role !== undefined && input.role !== current.role) patch.role = input.role;
    if (input.active !== undefined && input.active === current.disabled) patch.disabled = !input.active;
    if (patch.role === undefined && patch.disabled === undefined) return current;
    const after = { ...current, ...patch };
    let keeps: User | undefined;
    if (isActiveAdmin(current) && !isActiveAdmin(after)) {
      keeps = await anotherActiveAdmin(db, current.tenantId, current.id);
      if (!keeps) throw lastAdmin();
    }
    if (patch.disabled === true) patch.linkHash = null;
    const reason = revocationReason(current, patch);
    const details: AuditDetails = {
      ...(patch.role ? { fromRole: current.role, role: patch.role } : {}),
      ...(patch.disabled !== undefined ? { active: !patch.disabled } : {}),
    };
    const events = [event(context, 'user.updated', current, details)];
    if (reason) events.push(event(context, 'sessions.revoked', current, { reason }));
    try {
      const changed = await writeUserChange(db, current, {
        patch,
        endSessions: reason !== undefined,
        ...(patch.disabled === undefined
          ? {}
          : {
              count: patch.disabled ? { delta: -1, max: null } : { delta: 1, max: USER_LIMITS[tenant.plan] },
            }),
        ...(keeps ? { keeps } : {}),
        events,
      });
      for (const written of events) logAuditEvent(written);
      return changed;
    } catch (error) {
      if (error instanceof UserLimitReached) throw userLimitReached(tenant.plan, error);
      if (!(error instanceof WriteConflict || error instanceof AdminGone)) throw error;
    }
  }
  throw new AppError('SERVICE_UNAVAILABLE', 'The user kept changing; the change was not made. Retry.', {
    headers: { 'Retry-After': '1' },
  });
};

/**
 * A new one-time link for a user: a reset for one who has a password, a new invitation for one who
 * has none yet. It replaces any open link of the user and ends their sessions; the old password
 * works until the new one is set (deactivate a user whose password is known to others).
 */
export const issueLink = async (
  db: Database,
  input: { tenantId: string; userId: string },
  context: AuditContext,
): Promise<{ user: User; link: IssuedLink }> => {
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const current = await getUser(db, input.tenantId, input.userId);
    if (!current) throw notFound(input.userId);
    if (current.disabled) {
      throw new AppError(
        'CONFLICT',
        'The user is deactivated: reactivate them before giving them a new link.',
      );
    }
    const token = generateLinkToken();
    const purpose: LinkPurpose = current.passwordHash === null ? 'invitation' : 'password-reset';
    const link = newUserLink(
      { tokenHash: hashLinkToken(token), tenantId: current.tenantId, userId: current.id, purpose },
      LINK_VALID_SECONDS,
    );
    const events = [
      event(context, 'user.link-issued', current, { purpose }),
      event(context, 'sessions.revoked', current, { reason: purpose }),
    ];
    try {
      const changed = await writeUserChange(db, current, {
        patch: { linkHash: link.tokenHash },
        endSessions: true,
        with: [userLinkPut(db, link)],
        events,
      });
      for (const written of events) logAuditEvent(written);
      return { user: changed, link: { token, expiresAt: link.expiresAt, purpose } };
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
    }
  }
  throw new AppError('SERVICE_UNAVAILABLE', 'The user kept changing; the link was not made. Retry.', {
    headers: { 'Retry-After': '1' },
  });
};

/** Why a link cannot be used; audited, never answered (every reason gets the same answer). */
export type LinkRefusal = 'unknown' | 'used' | 'expired' | 'replaced' | 'deactivated';

export const linkRefusal = (
  link: UserLink | undefined,
  user: User | undefined,
  now: number,
): LinkRefusal | undefined => {
  if (!link || !user) return 'unknown';
  if (link.usedAt !== null) return 'used';
  if (Date.parse(link.expiresAt) <= now) return 'expired';
  if (user.disabled) return 'deactivated';
  if (user.linkHash !== link.tokenHash) return 'replaced';
  return undefined;
};

const invalidLink = () =>
  new AppError(
    'INVALID_LINK',
    'This link is invalid, used or expired. Ask an ADMIN of your organization for a new one.',
  );

const weakPassword = (field: string, problem: string) =>
  new AppError('VALIDATION_FAILED', `The new password is refused: ${problem}.`, {
    errors: [{ path: field, message: problem }],
  });

export interface LinkDeps {
  db: Database;
  tokens: TokenService;
  lockout: LoginThrottlePolicy;
  now?: () => number;
}

/**
 * Sets a password with a one-time link and signs its holder in (the answer of a login). A used,
 * expired, replaced or unknown token gets one answer; the reason is audited (in the tenant when the
 * token names a user, else as a log line). The login throttle counts every refused link against the
 * source address (and the account, when known), so guessing tokens is throttled like guessing passwords.
 */
export const acceptLink = async (
  { db, tokens, lockout, now: clock = Date.now }: LinkDeps,
  input: { token: string; password: string; sourceIp?: string | null | undefined; origin?: RequestOrigin },
): Promise<SessionTokens> => {
  const origin = input.origin ?? NO_REQUEST;
  const tokenHash = hashLinkToken(input.token);
  const link = await getUserLink(db, tokenHash);
  const found = link ? await getUserWithTenant(db, link.tenantId, link.userId) : undefined;
  const source = sourceOf(input.sourceIp);
  // An unknown token names no account: its failures count against the source, and a key of its own.
  const throttle = loginThrottle(db, lockout, {
    email: found?.user.email ?? `link:${tokenHash.slice(0, 16)}`,
    source,
    clock,
  });
  const attempt = await throttle.admit();
  const now = clock();
  const refusal = linkRefusal(link, found?.user, now);
  if (refusal || !link || !found) {
    await attempt.failed();
    await refused(db, found?.user, refusal ?? 'unknown', origin);
    throw invalidLink();
  }
  const { user, tenant } = found;
  if (!tenant.active) throw new AppError('TENANT_INACTIVE', 'The organization of this account is inactive.');
  const problem = passwordProblem(input.password, { email: user.email, tenantName: tenant.name });
  if (problem) {
    // The link stays usable: its holder chooses another password.
    await attempt.succeeded();
    throw weakPassword('password', problem);
  }
  const at = new Date(now).toISOString();
  const context: AuditContext = { actor: { type: 'user', id: user.id, email: user.email }, ...origin };
  const used = event(context, 'user.link-used', user, { purpose: link.purpose });
  const passwordHash = await hashPassword(input.password);
  const written = await setPasswordByLink(
    db,
    user,
    { passwordHash, linkHash: link.tokenHash, use: userLinkUse(db, link, at), at },
    used,
  );
  if (!written) {
    // Another use of the same link won the race.
    await attempt.failed();
    await refused(db, user, 'used', origin);
    throw invalidLink();
  }
  logAuditEvent(used);
  await attempt.succeeded();
  return startSession(
    { db, tokens },
    { ...user, passwordHash, linkHash: null, tokenVersion: user.tokenVersion + 1 },
  );
};

const refused = async (db: Database, user: User | undefined, reason: LinkRefusal, origin: RequestOrigin) => {
  if (!user) {
    audit('user.link-refused', { reason, sourceIp: origin.source?.ip ?? null });
    return;
  }
  const refusal = event(
    { actor: { type: 'user', id: user.id, email: user.email }, ...origin },
    'user.link-refused',
    user,
    {
      reason,
    },
  );
  await putAuditEvent(db, refusal);
  logAuditEvent(refusal);
};

/**
 * A signed-in user's new password: the current one must match (counted by the login throttle like a
 * login, so a stolen token is no password oracle), the new one follows the policy. Every session of
 * the user ends, and the caller gets a new one: their other devices must sign in again.
 */
export const changeOwnPassword = async (
  { db, tokens, lockout, now: clock = Date.now }: LinkDeps,
  principal: UserPrincipal,
  input: {
    currentPassword: string;
    newPassword: string;
    sourceIp?: string | null | undefined;
    origin?: RequestOrigin;
  },
): Promise<SessionTokens> => {
  const origin = input.origin ?? NO_REQUEST;
  const found = await getUserWithTenant(db, principal.tenantId, principal.userId);
  if (!found) throw notFound(principal.userId);
  const { user, tenant } = found;
  const throttle = loginThrottle(db, lockout, { email: user.email, source: sourceOf(input.sourceIp), clock });
  const attempt = await throttle.admit();
  if (!(await verifyPassword(input.currentPassword, user.passwordHash ?? ''))) {
    await attempt.failed();
    throw new AppError('VALIDATION_FAILED', 'The current password is wrong.', {
      errors: [{ path: 'currentPassword', message: 'is wrong' }],
    });
  }
  await attempt.succeeded();
  const problem = passwordProblem(input.newPassword, { email: user.email, tenantName: tenant.name });
  if (problem) throw weakPassword('newPassword', problem);
  const passwordHash = await hashPassword(input.newPassword);
  const context: AuditContext = { actor: { type: 'user', id: user.id, email: user.email }, ...origin };
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const current = tries === 0 ? user : await getUser(db, user.tenantId, user.id);
    if (!current) throw notFound(user.id);
    const events = [
      event(context, 'user.password-changed', current),
      event(context, 'sessions.revoked', current, { reason: 'password-changed' }),
    ];
    try {
      const changed = await writeUserChange(db, current, {
        patch: { passwordHash },
        endSessions: true,
        events,
      });
      for (const written of events) logAuditEvent(written);
      return startSession({ db, tokens }, changed);
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
    }
  }
  throw new AppError(
    'SERVICE_UNAVAILABLE',
    'The account kept changing; the password was not changed. Retry.',
    {
      headers: { 'Retry-After': '1' },
    },
  );
};
