import { webhookUrlProblem } from '../webhooks/urls';

/**
 * Stand-in for the guard's text check of a tenant's URL (lib/egress/urls.ts on main): until the guard
 * lands, the webhooks' check, which has the same rules for what it covers.
 */
export const tenantUrlProblem = (text: string, opts: { local: boolean }): string | undefined =>
  webhookUrlProblem(text, opts);
