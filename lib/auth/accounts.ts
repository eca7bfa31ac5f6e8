import type { Database } from '../db/client';
import { WriteConflict } from '../db/errors';
import { getUser, putUserChange, type User, updateUser } from '../db/users';
import { type AuditContext, auditEvent, systemContext } from '../domain/audit-event';
import { isDemotion } from '../domain/user';
import { AppError } from '../errors';
import { logAuditEvent } from '../logger';

/** How often a change is decided again when the user changed between the read and the write. */
const MAX_TRIES = 3;

const notFound = (userId: string) => new AppError('NOT_FOUND', `User ${userId} not found.`);

const kept = (userId: string, conflict: unknown) =>
  new Error(`User ${userId} kept changing; the change was not made.`, { cause: conflict });

/**
 * Writes a change that ends every session of the user (their token version raised) with its
 * `sessions.revoked` event, in one transaction based on the user as read.
 */
const endSessions = async (
  db: Database,
  user: User,
  change: AccountChange,
  reason: string,
  context: AuditContext,
) => {
  const event = auditEvent(context, {
    type: 'sessions.revoked',
    tenantId: user.tenantId,
    target: { type: 'user', id: user.id },
    details: { reason },
  });
  const updated = await putUserChange(db, user, change, event);
  logAuditEvent(event);
  return updated;
};

/**
 * Ends every session of a user at once: the token version is raised, so every refresh token and every
 * access token issued before stops working (access tokens within the session cache's bound,
 * ./session-guard.ts). The operator's `revoke-sessions` and a user's "sign out everywhere".
 */
export const revokeAllSessions = async (
  db: Database,
  tenantId: string,
  userId: string,
  context: AuditContext = systemContext('service'),
): Promise<User> => {
  let conflict: unknown;
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const current = await getUser(db, tenantId, userId);
    if (!current) throw notFound(userId);
    try {
      return await endSessions(db, current, {}, 'revoked', context);
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      conflict = error;
    }
  }
  throw kept(userId, conflict);
};

export type AccountChange = Partial<Pick<User, 'role' | 'disabled' | 'passwordHash'>>;

/** Why a change takes the user's tokens away, or undefined when it does not. */
export const revocationReason = (user: User, change: AccountChange): string | undefined => {
  if (change.disabled === true && !user.disabled) return 'disabled';
  // Stryker disable next-line ConditionalExpression: isDemotion of an absent role is false too; the guard is for the types
  if (change.role !== undefined && isDemotion(user.role, change.role)) return 'demoted';
  if (change.passwordHash !== undefined) return 'password-changed';
  return undefined;
};

/**
 * Changes a user's role, disabled flag or password. A change that takes rights away (disabling, a
 * demotion) or replaces the password also ends every session of the user: every token issued before
 * stops working, and `sessions.revoked` is recorded with the change. The decision rests on the user
 * as read, so the write is conditioned on the user being still as read, and decided again otherwise.
 */
export const updateAccount = async (
  db: Database,
  tenantId: string,
  userId: string,
  change: AccountChange,
  context: AuditContext = systemContext('service'),
): Promise<User> => {
  let conflict: unknown;
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const current = await getUser(db, tenantId, userId);
    if (!current) throw notFound(userId);
    const reason = revocationReason(current, change);
    try {
      if (reason) return await endSessions(db, current, change, reason, context);
      return await updateUser(db, tenantId, userId, change, { ifRole: current.role });
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      conflict = error;
    }
  }
  throw kept(userId, conflict);
};
