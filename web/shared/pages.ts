/**
 * The app's pages, in the order of the navigation: the shared header (./shell.ts) and the API
 * reference's bar (scripts/esbuild-api-docs.cjs) both list these, so every page offers the same way
 * around. `adminOnly` pages are listed in the app for ADMINs only; the reference, which has no session,
 * lists them all (the page itself tells a non-ADMIN it is not theirs).
 */
export const APP_PAGES = [
  { page: 'api-keys', label: 'API keys' },
  { page: 'kpis', label: 'KPIs' },
  { page: 'strategy', label: 'Strategy' },
  { page: 'integrations', label: 'Integrations' },
  { page: 'audit', label: 'Audit log', adminOnly: true },
  { page: 'people', label: 'People', adminOnly: true },
] as const satisfies readonly { page: string; label: string; adminOnly?: boolean }[];

export type PageName = (typeof APP_PAGES)[number]['page'];
