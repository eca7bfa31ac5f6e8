/** User roles (spec 5.1 leaves the list open; the foundation issue fixes these three). */
export const Role = { ADMIN: 'ADMIN', EDITOR: 'EDITOR', VIEWER: 'VIEWER' } as const;
export type Role = (typeof Role)[keyof typeof Role];
export const ROLES = Object.values(Role) as [Role, ...Role[]];
