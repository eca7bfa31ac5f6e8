/**
 * The pull integration page (served at /platform/integrations by functions/integrations-page.ts). One
 * state, rendered by lit-html: the list with each integration's status, last and next run; for ADMINs
 * the form to create and change one (secrets write-only: a stored secret is shown as set, and kept
 * unless a new one is typed), a preview with the extracted values beside each binding, a run now, and
 * for every role the run log. Sign-in, session, API calls and navigation are shared with the other
 * pages (web/shared/shell.ts).
 *
 * The folder, along the page's sections: state.ts (the state and the words for schedules and
 * authentications), actions.ts (what changes it: loading, the panel, what the dialogs send), views.ts
 * (the list and an integration's panel), dialogs.ts (the form and the delete confirmation), and this
 * file, which starts the page with its view.
 */
import { html } from 'lit-html';
import { signedIn } from './actions';
import { dialogs } from './dialogs';
import { page } from './state';
import { content } from './views';

page.start({
  title: 'Pull integrations',
  lead: html`A pull integration lets the service fetch KPI values from one of your systems on a schedule: it
    GETs a URL, reads each value out of the JSON answer with a JMESPath expression, and stores it as a push would.`,
  content,
  dialogs,
  signedIn,
});
