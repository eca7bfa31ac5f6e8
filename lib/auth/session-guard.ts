import type { SessionState } from '../db/sessions';
import type { User } from '../domain/user';
import { sessionRefusal } from './sign-in';
import { invalidToken, type UserPrincipal } from './tokens';

/**
 * The check that makes a 24-hour access token revocable: on every JWT request, the token's session,
 * user and tenant as they are now. A token is refused (401) once its session has ended (logout), its
 * user's token version was raised (disabled, demoted, signed out everywhere, an operator's
 * `revoke-sessions`), its role is no longer the user's, or the user or tenant may no longer hold a
 * token (disabled, inactive).
 *
 * The state is read with one strongly consistent BatchGetItem (user, tenant, session) and kept per
 * container and session for at most `ttlSeconds` (≤ 60): a revocation ends access within that bound,
 * at the cost of one read per session and container in each such period.
 */
export interface SessionGuard {
  check(principal: UserPrincipal): Promise<void>;
}

/** The bound the documentation promises: no container serves a revoked token longer than this. */
export const MAX_SESSION_CACHE_SECONDS = 60;

/** Sessions remembered per container: far above what one container serves in a minute. */
const MAX_ENTRIES = 10_000;

export const createSessionGuard = ({
  load,
  ttlSeconds,
  now = () => Date.now(),
}: {
  load: (principal: UserPrincipal) => Promise<SessionState>;
  ttlSeconds: number;
  now?: () => number;
}): SessionGuard => {
  const ttlMs = Math.min(ttlSeconds, MAX_SESSION_CACHE_SECONDS) * 1000;
  const entries = new Map<string, { state: Promise<SessionState>; expiresAt: number }>();

  const stateOf = (principal: UserPrincipal) => {
    const key = JSON.stringify([principal.tenantId, principal.userId, principal.sessionId]);
    const cached = entries.get(key);
    if (cached && cached.expiresAt > now()) return cached.state;
    const state = load(principal);
    entries.delete(key);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an entry of a zero TTL expires as it is made; this only keeps the map empty
    if (ttlMs > 0) {
      // Concurrent requests of one session share one read; a failed read is not remembered.
      entries.set(key, { state, expiresAt: now() + ttlMs });
      state.catch(() => entries.delete(key));
      // Map order is insertion order: the oldest entry goes first.
      if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
    }
    return state;
  };

  return {
    async check(principal) {
      const state = await stateOf(principal);
      const refused = sessionRefusal(principal, state);
      if (refused) throw refused;
      // sessionRefusal refuses a missing user.
      const user = state.user as User;
      const { tenant } = state;
      // A role change that kept the version (a promotion): a refresh gives a token of the new role.
      if (user.role !== principal.role)
        throw invalidToken('The role of this account changed. Refresh the token.');
      // Disabling raises the token version; this holds when the data was changed some other way.
      if (user.disabled) throw invalidToken('This account is disabled.');
      if (!tenant?.active) throw invalidToken('The organization of this account is inactive.');
    },
  };
};
