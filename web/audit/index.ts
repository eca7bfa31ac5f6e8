/**
 * The audit page (served at /platform/audit by functions/audit-page.ts; ADMIN only, and linked in the
 * navigation for ADMINs only): the tenant's audit events, newest first, filtered by time, type, actor
 * and target, each key, KPI and integration linked to its own page. Sign-in, session, API calls and
 * navigation are shared with the other pages (web/shared/shell.ts).
 *
 * The folder: state.ts (the state and the filters), actions.ts (loading pages of events), views.ts (the
 * filters and the list), and this file, which starts the page with its view.
 */
import { html } from 'lit-html';
import { signedIn } from './actions';
import { page } from './state';
import { content } from './views';

page.start({
  title: 'Audit log',
  lead: html`Who changed what in your tenant, when and from where: keys, KPIs, webhooks, pull integrations,
    sign-ins and sessions. Events are kept for 400 days.`,
  content,
  signedIn,
});
