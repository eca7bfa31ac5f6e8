/**
 * The people page's content: the one-time link just made, the invite form, and the users with their
 * role, status, last sign-in and who invited them, each with its changes.
 */
import { html, nothing } from 'lit-html';
import { keyed } from 'lit-html/directives/keyed.js';
import { live } from 'lit-html/directives/live.js';
import { repeat } from 'lit-html/directives/repeat.js';
import { loadFailed, loadingNotice, message, timeCell } from '../shared/view';
import { changeRole, copyLink, dismissLink, invite, loadUsers, newLink, setActive } from './actions';
import type { Person, State } from './state';

const ROLES = ['ADMIN', 'EDITOR', 'VIEWER'] as const;

const roleOptions = (selected: string) =>
  ROLES.map((role) => html`<option value=${role} ?selected=${role === selected}>${role}</option>`);

const linkPanel = (state: State) => {
  const { link } = state;
  if (!link) return nothing;
  const what = link.link.purpose === 'invitation' ? 'Invitation link' : 'Password link';
  return html`<section id="link-panel" class="notice" aria-labelledby="link-title">
    <h2 id="link-title" tabindex="-1">${what} for ${link.user.email}</h2>
    <p>It is shown only this once and works one time, until ${timeCell(link.link.expiresAt, '—')}.
      The service sends no e-mail: copy the link and hand it to them yourself (chat, your own mail).</p>
    <div class="link-row">
      <label for="link-url" class="visually-hidden">${what}</label>
      <input id="link-url" readonly .value=${link.link.url} />
      <button type="button" class="primary" id="copy-link" @click=${copyLink}>${state.copied ? 'Copied' : 'Copy'}</button>
      <button type="button" id="dismiss-link" @click=${dismissLink}>Done</button>
    </div>
  </section>`;
};

const inviteForm = (state: State) =>
  html`<section aria-labelledby="invite-title">
    <h2 id="invite-title">Invite someone</h2>
    ${keyed(
      state.inviteForm,
      html`<form id="invite-form" novalidate @submit=${invite}>
        <div class="field"><label for="invite-email">E-mail</label><input id="invite-email" name="email" type="email" autocomplete="off" required /></div>
        <div class="field"><label for="invite-role">Role</label><select id="invite-role" name="role">${roleOptions('VIEWER')}</select></div>
        <div class="field"><label for="invite-name">Name (optional)</label><input id="invite-name" name="name" autocomplete="off" /></div>
        <div><button type="submit" class="primary" id="invite-submit" ?disabled=${state.inviting}>Invite</button></div>
      </form>`,
    )}
    ${message('invite-error', 'error', state.inviteError, 'alert')}
  </section>`;

const invitedBy = ({ invitedBy }: Person) =>
  invitedBy ? (invitedBy.email ?? html`<code>${invitedBy.userId}</code>`) : 'The operator';

const row = (state: State, user: Person) => {
  const busy = state.busyId === user.id;
  const self = state.shell.claims?.sub === user.id;
  return html`<tr data-user-id=${user.id} data-status=${user.status}>
    <th scope="row" data-label="Person">${user.name ? html`${user.name}<br />` : nothing}<span class="email">${user.email}</span>${self ? html` <span class="note">(you)</span>` : nothing}</th>
    <td data-label="Role"><select aria-label="Role of ${user.email}" ?disabled=${busy} .value=${live(user.role)} @change=${(event: Event) => changeRole(user, (event.target as HTMLSelectElement).value)}>${roleOptions(user.role)}</select></td>
    <td data-label="Status" class="status-${user.status}">${user.status}</td>
    <td data-label="Last sign-in">${timeCell(user.lastSignInAt, 'Never')}</td>
    <td data-label="Invited by">${invitedBy(user)}</td>
    <td data-label="Actions" class="actions">
      ${
        user.status === 'deactivated'
          ? html`<button type="button" ?disabled=${busy} aria-label="Reactivate ${user.email}" @click=${() => setActive(user, true)}>Reactivate</button>`
          : html`<button type="button" class="danger" ?disabled=${busy} aria-label="Deactivate ${user.email}" @click=${() => setActive(user, false)}>Deactivate</button>`
      }
      <button type="button" ?disabled=${busy || user.status === 'deactivated'} aria-label="New link for ${user.email}" @click=${() => newLink(user)}>New link</button>
    </td>
  </tr>`;
};

const list = (state: State) => {
  if (state.loadError) return loadFailed('people-error', 'The people', state.loadError, () => loadUsers());
  if (!state.users) return loadingNotice('people-loading', 'Loading the people…');
  return html`${message('action-error', 'error', state.actionError, 'alert')}
    <table id="people-table">
      <caption>People of your organization, oldest first</caption>
      <thead><tr><th scope="col">Person</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Last sign-in</th><th scope="col">Invited by</th><th scope="col">Actions</th></tr></thead>
      <tbody>${repeat(
        state.users,
        (user) => user.id,
        (user) => row(state, user),
      )}</tbody>
    </table>
    ${
      state.nextCursor
        ? html`<p><button type="button" id="more-people" ?disabled=${state.loading} @click=${() => loadUsers(true)}>More people</button></p>`
        : nothing
    }`;
};

export const content = (state: State) =>
  state.forbidden
    ? html`<p id="people-forbidden" class="notice">ADMINs only: ask an ADMIN of your organization to invite people, change roles or deactivate someone.</p>`
    : html`${linkPanel(state)}${inviteForm(state)}
      <section aria-labelledby="people-title">
        <h2 id="people-title" tabindex="-1">People</h2>
        ${list(state)}
      </section>`;
