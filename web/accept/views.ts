/** The accept page: the password form, or why there is none (the address holds no link). */
import { html, render } from 'lit-html';
import { message } from '../shared/view';
import { MIN_PASSWORD_LENGTH, submit } from './actions';
import type { Accept } from './state';

const form = (state: Accept) =>
  html`<form id="accept-form" class="stack" novalidate @submit=${submit}>
    <div class="field">
      <label for="new-password">New password</label>
      <input id="new-password" name="password" type="password" autocomplete="new-password" required
        minlength=${MIN_PASSWORD_LENGTH} aria-describedby="password-hint" />
      <p id="password-hint" class="hint">At least ${MIN_PASSWORD_LENGTH} characters; not your e-mail address
        nor your organization's name. A passphrase of several words is easy to remember.</p>
    </div>
    ${message('accept-error', 'error', state.error, 'alert')}
    <div><button type="submit" class="primary" id="accept-submit" ?disabled=${state.busy}>Set password and sign in</button></div>
  </form>`;

const noLink = html`<p id="no-link" class="notice">This address holds no link. Open the whole link your
  ADMIN gave you, or ask them for a new one. <a href="kpis">Sign in</a> if you have a password.</p>`;

/** Renders the page before its script element, the body's only other content. */
export const renderPage = (before: ChildNode | undefined) => (state: Accept) =>
  render(
    html`<header class="bar"><p class="brand">Strategy service</p></header>
      <main id="main">
        <h1>Set your password</h1>
        <p class="lead">You were invited to your organization's strategy service, or given a link for a
          new password. Choose a password to sign in.</p>
        ${state.token ? form(state) : noLink}
      </main>`,
    document.body,
    { renderBefore: before },
  );
