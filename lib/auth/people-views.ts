import * as z from 'zod/mini';
import { LINK_PURPOSES } from '../db/user-links';
import type { User } from '../domain/user';
import { ROLES, USER_STATUSES, userStatus } from '../domain/user';
import { timestamp } from '../domain/values';
import type { IssuedLink } from './people';
import { linkUrl } from './people';

/**
 * What an ADMIN sees of a user: never the password's hash nor the hash of their open link, and not
 * the tenant, which is the caller's own.
 */
export const personSchema = z
  .object({
    id: z.string().check(z.describe('The user’s id.')),
    email: z.string().check(z.describe('The address they sign in with (lower case).')),
    name: z.nullable(z.string()).check(z.describe('As the inviting ADMIN gave it; `null` when none was.')),
    role: z.enum(ROLES),
    status: z
      .enum(USER_STATUSES)
      .check(
        z.describe(
          '`invited` until a password is set with a link, `deactivated` while they may not sign in.',
        ),
      ),
    lastSignInAt: z
      .nullable(timestamp)
      .check(z.describe('Their last login or accepted link; `null` before the first.')),
    invitedBy: z
      .nullable(z.object({ userId: z.string(), email: z.nullable(z.string()) }))
      .check(z.describe('The ADMIN who invited them; `null` for users the operator created.')),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .check(z.meta({ id: 'Person', description: 'A user of the tenant, as its ADMINs manage them.' }));

export const personView = (user: User): z.output<typeof personSchema> => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: user.role,
  status: userStatus(user),
  lastSignInAt: user.lastSignInAt,
  invitedBy: user.invitedBy ? { userId: user.invitedBy.id, email: user.invitedBy.email } : null,
  createdAt: user.createdAt,
  updatedAt: user.updatedAt,
});

/** What an ADMIN or an EDITOR sees of a user who may own a KPI: who they are, nothing of their account. */
export const kpiOwnerSchema = z
  .object({
    id: z.string().check(z.describe('The user’s id: a KPI’s `ownerId`.')),
    name: z.nullable(z.string()).check(z.describe('`null` when none was given.')),
    email: z.string().check(z.describe('The address they sign in with (lower case).')),
  })
  .check(z.meta({ id: 'KpiOwner', description: 'An active user of the tenant, who may own a KPI.' }));

export const kpiOwnerView = (user: User): z.output<typeof kpiOwnerSchema> => ({
  id: user.id,
  name: user.name,
  email: user.email,
});

export const linkSchema = z
  .object({
    url: z
      .string()
      .check(z.describe('The page that sets the password, the token in its fragment. Shown once.')),
    token: z
      .string()
      .check(z.describe('The one-time token alone, for `POST /auth/accept-invitation`. Shown once.')),
    purpose: z.enum(LINK_PURPOSES),
    expiresAt: timestamp.check(z.describe('7 days after it was made.')),
  })
  .check(
    z.meta({
      id: 'OneTimeLink',
      description:
        'A one-time link, in this answer only: the service stores its SHA-256 alone and sends no e-mail. Hand it to the person yourself.',
    }),
  );

export const linkView = (origin: string, link: IssuedLink): z.output<typeof linkSchema> => ({
  url: linkUrl(origin, link.token),
  token: link.token,
  purpose: link.purpose,
  expiresAt: link.expiresAt,
});

export const personWithLinkSchema = z
  .object({ user: personSchema, link: linkSchema })
  .check(z.meta({ id: 'PersonWithLink', description: 'The user and their new one-time link.' }));

/** A new session, as a login answers it. */
export const sessionSchema = z
  .object({
    token: z.string().check(z.describe('Access token (JWT), as a login gives it.')),
    refreshToken: z.string().check(z.describe('Refresh token (JWT, 30 days).')),
    expiresIn: z.int().check(z.describe('Lifetime of the access token in seconds: 86400.')),
  })
  .check(z.meta({ id: 'SessionTokens', description: 'A new session, as a login answers.' }));
