/**
 * The API key management page (spec 2.7, 3; served at /platform/api-keys by functions/api-keys-page.ts).
 * One state, rendered by lit-html: the list, each key's status and use, the plan, loading and errors,
 * and the dialogs are all derived from it, so an action cannot leave one row or count stale. Each key
 * shows its last 30 days (`usage` of `GET /api-keys`) as a bar chart drawn by uPlot, the library of the
 * KPI page's charts; its Usage button opens the refusals by reason (`GET /api-keys/{id}/usage`).
 * Sign-in, session, API calls and navigation are shared with the other pages (web/shared/shell.ts).
 *
 * The folder, along the page's sections: state.ts (the state and what follows from it alone),
 * actions.ts (what changes it: loading, and what the dialogs send), views.ts (the list), usage.ts (a
 * key's use in its row and its usage panel), chart.ts (the usage bars), dialogs.ts, and this file,
 * which starts the page with its view.
 */
import { html } from 'lit-html';
import { signedIn } from './actions';
import { dialogs } from './dialogs';
import { page } from './state';
import { content } from './views';

page.start({
  title: 'API keys',
  lead: html`API keys let external systems (CI/CD pipelines, cron jobs, applications) push KPI measurements
    for your organization. They send the key in the <code>x-api-key</code> header.`,
  content,
  dialogs,
  signedIn,
});
