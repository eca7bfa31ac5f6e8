/**
 * The people page (served at /platform/people by functions/people-page.ts; ADMIN only, and linked in
 * the navigation for ADMINs only): the tenant's users, inviting someone with a one-time link shown
 * once, changing a role, deactivating and reactivating, and a new link for a forgotten password.
 * Sign-in, session, API calls and navigation are shared with the other pages (web/shared/shell.ts).
 *
 * The folder: state.ts (the state), actions.ts (the calls to `/users`), views.ts (the link, the invite
 * form and the list), and this file, which starts the page with its view.
 */
import { html } from 'lit-html';
import { signedIn } from './actions';
import { page } from './state';
import { content } from './views';

page.start({
  title: 'People',
  lead: html`Who signs in to your organization, and with which role. An invitation is a one-time link
    that you copy and hand over yourself: the service sends no e-mail.`,
  content,
  signedIn,
});
