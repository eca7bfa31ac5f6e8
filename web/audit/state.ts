/** The audit page's state, the page that holds it, and the filters as the form and the URL hold them. */
import type { AuditEventType } from '../../lib/domain/audit-event';
import type { AuditEventPage } from '../shared/api-types';
import { createPage, type PageState } from '../shared/shell';

export type AuditEvent = AuditEventPage['items'][number];

/** The list's filters, as `GET /audit-events` takes them; empty strings are no filter. */
export interface Filters {
  from: string;
  to: string;
  types: string[];
  /** An e-mail (`actorEmail`) or an id (`actorId`). */
  actor: string;
  targetId: string;
}

export interface Audit {
  filters: Filters;
  items: AuditEvent[] | null;
  nextCursor: string | null;
  loading: boolean;
  loadError: string | null;
  /** A VIEWER or EDITOR: the log is for ADMINs, and the page says so instead of asking for it. */
  forbidden: boolean;
}

export type State = PageState<Audit>;

export const NO_FILTERS: Filters = { from: '', to: '', types: [], actor: '', targetId: '' };

export const page = createPage<Audit>({
  name: 'audit',
  initial: {
    filters: NO_FILTERS,
    items: null,
    nextCursor: null,
    loading: false,
    loadError: null,
    forbidden: false,
  },
});

/** The events a filter may name, in the order the API lists them. */
export const EVENT_TYPES = [
  'api_key.created',
  'api_key.rolled',
  'api_key.updated',
  'api_key.revoked',
  'api_key.leaked',
  'kpi.created',
  'kpi.updated',
  'kpi.archived',
  'kpi.restored',
  'kpi.targets_set',
  'cycle.created',
  'cycle.updated',
  'cycle.deleted',
  'webhook.created',
  'webhook.deleted',
  'webhook.disabled',
  'integration.created',
  'integration.updated',
  'integration.deleted',
  'integration.run',
  'integration.disabled',
  'login.succeeded',
  'login.failed',
  'login.locked',
  'login.source-locked',
  'login.ceiling-reached',
  'logout',
  'sessions.revoked',
  'user.invited',
  'user.updated',
  'user.link-issued',
  'user.link-used',
  'user.link-refused',
  'user.password-changed',
] as const satisfies readonly AuditEventType[];

// The page names every type the API stores (the domain's list, which the page does not bundle):
// a type added there and not here fails the type check.
const everyType: [Exclude<AuditEventType, (typeof EVENT_TYPES)[number]>] extends [never] ? true : false =
  true;
void everyType;
