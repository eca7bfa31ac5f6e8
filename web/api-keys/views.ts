/**
 * The key page's content: the plan's count and notices, the active keys, and the revoked and expired
 * ones folded away below them.
 */
import { html, nothing } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';
import { plural } from '../shared/format';
import { isAdmin } from '../shared/shell';
import { dayCell, loadFailed, loadingNotice, message, timeCell } from '../shared/view';
import { openCreate, openRevoke, openRoll, openSources, retry } from './actions';
import {
  actorText,
  expiresSoon,
  holdsSlot,
  inGraceBefore,
  type Key,
  keyLabel,
  PUSH_FEATURE,
  type State,
  scopeText,
} from './state';
import { lastRequestCell, usageCell, usageRow } from './usage';

/**
 * "2 of 3 keys used", the push warning, and why Create is disabled, from the list and the plan. While a
 * rolled key works in its grace period the list shows more active keys than the count: the count says
 * why, where it stands.
 */
const planView = (state: State, keys: Key[]) => {
  const { plan } = state;
  if (!plan) return { usage: null, pushWarning: null, limit: null };
  const used = keys.filter(holdsSlot).length;
  const max = plan.apiKeyLimit;
  const rolling = keys.some((key) => key.status === 'active' && key.replacedBy !== null);
  return {
    usage: `${
      max === null
        ? `${plural(used, 'key')} in use · unlimited on the ${plan.name} plan`
        : `${used} of ${max} keys used on the ${plan.name} plan`
    }${rolling ? '; a rolled key and its replacement count as one until the old key stops working' : ''}`,
    pushWarning: plan.features.includes(PUSH_FEATURE)
      ? null
      : `Your organization’s ${plan.name} plan does not include pushing measurements (${PUSH_FEATURE}). ` +
        'Keys can be created, but every push with them is refused until the plan is upgraded.',
    // Said next to the disabled button before the admin types anything.
    limit:
      isAdmin(state.shell) && max !== null && used >= max
        ? `All ${max} keys of the ${plan.name} plan are in use. Revoke a key, or upgrade the plan, to create ` +
          'another. Rolling a key does not need a free slot.'
        : null,
  };
};

/**
 * When an active key was created, under its name: a day is enough there, and the row keeps its width
 * for the key's use.
 */
const createdNote = (iso: string) =>
  Number.isNaN(new Date(iso).getTime())
    ? nothing
    : html`<span class="note created">created ${dayCell(iso)}</span>`;

const activeRow = (state: State, key: Key, admin: boolean, now: number) => {
  const soon = expiresSoon(key, now);
  const highlighted = state.highlighted === key.id;
  return html`<tr id="key-${key.id}" data-key-id=${key.id} data-status=${key.status} ?data-rolled=${key.replacedBy !== null} ?data-highlighted=${highlighted} tabindex=${highlighted ? '-1' : nothing}>
    <th scope="row" data-label="Name"><span>${key.name}${createdNote(key.createdAt)}</span></th>
    <td data-label="Prefix"><code>${key.prefix}</code></td>
    <td data-label="Status"><span class="badge ${key.status}">${key.status}</span>${
      key.replacedBy
        ? html` <span class="note">replaced by <code>${key.replacedBy.prefix}</code></span>`
        : inGraceBefore(key, state.keys)
          ? html` <span class="note">replaces <code>${key.replaces?.prefix}</code></span>`
          : nothing
    }</td>
    <td data-label="KPIs">${scopeText(key.kpiIds, state.kpiNames)}</td>
    <td data-label="Sources">${key.allowedSources?.join(', ') ?? 'Any'}</td>
    <td data-label="Expires">${timeCell(key.expiresAt, 'Never')}${soon ? html` <span class="soon">${soon}</span>` : nothing}</td>
    <td data-label="Last used">${timeCell(key.lastUsedAt, 'Never')}</td>
    ${usageCell(state, key)}
    ${lastRequestCell(key)}
    ${
      admin
        ? html`<td class="row-actions"><button type="button" aria-label="Sources of ${keyLabel(key)}" @click=${() => openSources(key)}>Sources</button>${
            key.replacedBy
              ? nothing
              : html`<button type="button" aria-label="Roll ${keyLabel(key)}" @click=${() => openRoll(key)}>Roll</button>`
          }<button type="button" class="danger" aria-label="Revoke ${keyLabel(key)}" @click=${() => openRevoke(key)}>Revoke</button></td>`
        : nothing
    }
  </tr>${usageRow(state, key, ACTIVE_COLUMNS.length + (admin ? 1 : 0))}`;
};

/** Revoked and expired keys, with when they ended and who revoked them. */
const inactiveRow = (state: State, key: Key) => {
  const by = key.status === 'revoked' ? actorText(key.revokedBy) : null;
  const highlighted = state.highlighted === key.id;
  return html`<tr id="key-${key.id}" data-key-id=${key.id} data-status=${key.status} ?data-highlighted=${highlighted} tabindex=${highlighted ? '-1' : nothing}>
    <th scope="row" data-label="Name">${key.name}</th>
    <td data-label="Prefix"><code>${key.prefix}</code></td>
    <td data-label="Status"><span class="badge ${key.status}">${key.status}</span></td>
    <td data-label="Ended">${
      key.status === 'revoked'
        ? html`Revoked ${timeCell(key.revokedAt, '—')}${by ? html`<span class="note"> by ${by}</span>` : nothing}`
        : html`Expired ${timeCell(key.expiresAt, '—')}`
    }</td>
    <td data-label="Created">${timeCell(key.createdAt, '—')}</td>
    <td data-label="Last used">${timeCell(key.lastUsedAt, 'Never')}</td>
    ${usageCell(state, key)}
    ${lastRequestCell(key)}
  </tr>${usageRow(state, key, INACTIVE_COLUMNS.length)}`;
};

/** Columns of the tables, besides the actions (a usage panel spans them all), as each row fills them. */
const ACTIVE_COLUMNS = [
  'Name',
  'Prefix',
  'Status',
  'KPIs',
  'Sources',
  'Expires',
  'Last used',
  'Last 30 days',
  'Last request',
];
const INACTIVE_COLUMNS = [
  'Name',
  'Prefix',
  'Status',
  'Ended',
  'Created',
  'Last used',
  'Last 30 days',
  'Last request',
];

const headers = (columns: string[]) => columns.map((column) => html`<th scope="col">${column}</th>`);

const keyList = (state: State, keys: Key[], admin: boolean) => {
  const now = Date.now();
  const active = keys.filter((key) => key.status === 'active');
  const inactive = keys.filter((key) => key.status !== 'active');
  const byId = (key: Key) => key.id;
  return html`${
    active.length === 0
      ? html`<p id="empty" class="empty">Your organization has no active API keys${inactive.length > 0 ? '' : ' yet'}.${
          admin ? ' Create one to let an external system push measurements.' : ''
        }</p>`
      : html`<table id="keys-table">
          <caption class="visually-hidden">Active API keys of your organization</caption>
          <thead>
            <tr>
              ${headers(ACTIVE_COLUMNS)}
              ${admin ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : nothing}
            </tr>
          </thead>
          <tbody id="keys-body">${repeat(active, byId, (key) => activeRow(state, key, admin, now))}</tbody>
        </table>`
  }
  ${
    inactive.length === 0
      ? nothing
      : html`<details id="inactive" ?open=${inactive.some((key) => key.id === state.highlighted)}>
          <summary id="inactive-summary">Show inactive (${inactive.length})</summary>
          <table id="inactive-table">
            <caption class="visually-hidden">Revoked and expired API keys of your organization</caption>
            <thead>
              <tr>
                ${headers(INACTIVE_COLUMNS)}
              </tr>
            </thead>
            <tbody id="inactive-body">${repeat(inactive, byId, (key) => inactiveRow(state, key))}</tbody>
          </table>
        </details>`
  }`;
};

export const content = (state: State) => {
  const admin = isAdmin(state.shell);
  const { keys } = state;
  const plan = keys ? planView(state, keys) : { usage: null, pushWarning: null, limit: null };
  return html`<section id="keys" aria-labelledby="keys-title" aria-busy=${state.loading ? 'true' : nothing}>
    <div class="section-head">
      <h2 id="keys-title" tabindex="-1">Keys of your organization</h2>
      ${
        admin
          ? html`<button type="button" id="create-open" class="primary" ?disabled=${plan.limit !== null} aria-describedby=${plan.limit ? 'limit-notice' : nothing} @click=${openCreate}>Create API key</button>`
          : nothing
      }
    </div>
    ${message('plan-usage', 'plan-usage', plan.usage)}
    ${message('push-warning', 'notice warning', plan.pushWarning)}
    ${message(
      'role-notice',
      'notice',
      admin
        ? null
        : `You are signed in with the ${state.shell.claims?.role ?? 'unknown'} role. Only administrators (ADMIN) ` +
            'can create or revoke API keys, so you can see the list but not change it.',
    )}
    ${message('limit-notice', 'notice warning', plan.limit)}
    ${state.loadError ? loadFailed('list-error', 'The keys', state.loadError, retry) : nothing}
    ${keys ? keyList(state, keys, admin) : state.loading ? loadingNotice('keys-loading', 'Loading the keys…') : nothing}
  </section>`;
};
