import * as z from 'zod/mini';
import { id, timestamp } from './values';

/** User roles (spec 5.1 leaves the list open): these three. */
export const Role = { ADMIN: 'ADMIN', EDITOR: 'EDITOR', VIEWER: 'VIEWER' } as const;
export type Role = (typeof Role)[keyof typeof Role];
export const ROLES = Object.values(Role) as [Role, ...Role[]];

export const userSchema = z.object({
  id,
  tenantId: id,
  /** Normalized (trimmed, lower case): an e-mail identifies one user across all tenants. */
  email: z.string(),
  role: z.enum(ROLES),
  disabled: z.boolean(),
  /** Shown in the people list; null when the ADMIN who invited them gave none. */
  name: z.nullable(z.string()),
  /**
   * scrypt hash with its parameters; never leaves the service except for verification. Null while
   * the user is invited and has not set a password yet.
   */
  passwordHash: z.nullable(z.string()),
  /**
   * SHA-256 of the one-time link the user may set a password with (an invitation or a reset), null
   * when none is open: a new link replaces the last, and using one clears it.
   */
  linkHash: z.nullable(z.string()),
  /** Who invited them; null for users the operator created. */
  invitedBy: z.nullable(z.object({ id, email: z.nullable(z.string()) })),
  /** When they last signed in (a login or an accepted link); null before the first time. */
  lastSignInAt: z.nullable(timestamp),
  /**
   * In every token of the user; raised when the user is disabled, demoted or signs out everywhere, so
   * that every token issued before stops working (lib/auth/accounts.ts, lib/auth/session-guard.ts).
   */
  tokenVersion: z.int().check(z.gte(0)),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type User = z.output<typeof userSchema>;

/** From most to least privileged: a change to a later role is a demotion. */
const ROLE_RANK: Record<Role, number> = { ADMIN: 3, EDITOR: 2, VIEWER: 1 };

/** Whether moving from `from` to `to` takes rights away. */
export const isDemotion = (from: Role, to: Role): boolean => ROLE_RANK[to] < ROLE_RANK[from];

/** What the people list shows: invited until a password is set, deactivated while disabled. */
export const USER_STATUSES = ['invited', 'active', 'deactivated'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export const userStatus = (user: Pick<User, 'disabled' | 'passwordHash'>): UserStatus => {
  if (user.disabled) return 'deactivated';
  return user.passwordHash === null ? 'invited' : 'active';
};
