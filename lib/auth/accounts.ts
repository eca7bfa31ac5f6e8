import type { Database } from '../db/client';
import { WriteConflict } from '../db/errors';
import { getUser, type User, updateUser } from '../db/users';
import { isDemotion } from '../domain/user';
import { AppError } from '../errors';
import { audit } from '../logger';

/**
 * Ends every session of a user at once: the token version is raised, so every refresh token and every
 * access token issued before stops working (access tokens within the session cache's bound,
 * ./session-guard.ts). The operator's `revoke-sessions` and a user's "sign out everywhere".
 */
export const revokeAllSessions = async (db: Database, tenantId: string, userId: string): Promise<User> => {
  const user = await updateUser(db, tenantId, userId, {}, { raiseTokenVersion: true });
  audit('sessions.revoked', { tenantId, userId, reason: 'revoked' });
  return user;
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

/** How often a change is decided again when the user changed between the read and the write. */
const MAX_TRIES = 3;

/**
 * Changes a user's role, disabled flag or password. A change that takes rights away (disabling, a
 * demotion) or replaces the password also ends every session of the user: every token issued before
 * stops working. The decision rests on the user as read, so the write is conditioned on their role
 * being still the one read, and decided again otherwise.
 */
export const updateAccount = async (
  db: Database,
  tenantId: string,
  userId: string,
  change: AccountChange,
): Promise<User> => {
  let conflict: unknown;
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const current = await getUser(db, tenantId, userId);
    if (!current) throw new AppError('NOT_FOUND', `User ${userId} not found.`);
    const reason = revocationReason(current, change);
    try {
      const updated = await updateUser(db, tenantId, userId, change, {
        raiseTokenVersion: reason !== undefined,
        ifRole: current.role,
      });
      if (reason) audit('sessions.revoked', { tenantId, userId, reason });
      return updated;
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
      conflict = error;
    }
  }
  throw new Error(`User ${userId} kept changing; the change was not made.`, { cause: conflict });
};
