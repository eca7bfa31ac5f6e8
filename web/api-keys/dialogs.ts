/**
 * The key page's dialogs: create a key, show a new key once, roll a key, and revoke one (saying which
 * other key stops with it).
 */
import { html, nothing } from 'lit-html';
import { modal } from '../shared/dialog';
import { dateOnly, timeOnly } from '../shared/format';
import { message } from '../shared/view';
import {
  closeReveal,
  confirmRevoke,
  copyKey,
  restrictToLast,
  submitCreate,
  submitRoll,
  submitSources,
} from './actions';
import { type Dialog, type DialogOf, type Key, openDialog, type State } from './state';

/**
 * A dialog of the page, `<kind>-dialog` titled by its `<kind>-title`: modal exactly while the state
 * holds it, its content rendered only then. The browser's own closing (Escape) forgets it, or runs
 * `onClose`.
 */
const frame = <K extends Dialog['kind']>(
  kind: K,
  dialog: DialogOf<K> | null,
  content: (open: DialogOf<K>) => unknown,
  { describedBy, onClose }: { describedBy?: string | undefined; onClose?: () => void } = {},
) =>
  html`<dialog id="${kind}-dialog" aria-labelledby="${kind}-title" aria-describedby=${describedBy ?? nothing} ${modal(dialog !== null)} @close=${onClose ?? (() => openDialog.closed(kind))}>${dialog ? content(dialog) : nothing}</dialog>`;

const today = () => {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
};

const createDialog = (dialog: DialogOf<'create'> | null) =>
  frame(
    'create',
    dialog,
    (dialog) =>
      html`<form id="create-form" class="stack" novalidate @submit=${submitCreate}>
          <h2 id="create-title">Create API key</h2>
          <div class="field">
            <label for="key-name">Name</label>
            <p id="key-name-hint" class="hint">What the key is for, e.g. “CI pipeline”. 1 to 100 characters.</p>
            <input id="key-name" name="name" required maxlength="100" autocomplete="off" aria-describedby="key-name-hint key-name-error" aria-invalid=${dialog.nameError ? 'true' : nothing} />
            ${message('key-name-error', 'error', dialog.nameError)}
          </div>
          <div class="field">
            <label for="key-expires">Expiration date <span class="optional">(optional)</span></label>
            <p id="key-expires-hint" class="hint">
              The key stops working at the end of this day (your time zone). Leave empty for no expiration.
            </p>
            <input id="key-expires" name="expiresAt" type="date" min=${today()} aria-describedby="key-expires-hint key-expires-error" aria-invalid=${dialog.expiresError ? 'true' : nothing} />
            ${message('key-expires-error', 'error', dialog.expiresError)}
          </div>
          ${message('create-error', 'error', dialog.error, 'alert')}
          <div class="actions">
            <button type="button" id="create-cancel" @click=${() => openDialog.closed('create')}>Cancel</button>
            <button type="submit" id="create-submit" class="primary" ?disabled=${dialog.busy}>Create key</button>
          </div>
        </form>`,
  );

const rollNote = (rolled: Key) => {
  const old = rolled.expiresAt ? new Date(rolled.expiresAt) : null;
  return old && old.getTime() > Date.now()
    ? `The old key ${rolled.prefix}… keeps working until ${dateOnly.format(old)} ${timeOnly.format(old)}: deploy the new key before then.`
    : `The old key ${rolled.prefix}… has stopped working.`;
};

// A textarea, not an input: the whole key wraps onto two lines on a 375 px phone instead of being cut
// off at about 21 characters, and it can still be selected and copied in one go.
const revealDialog = (dialog: DialogOf<'reveal'> | null) =>
  frame(
    'reveal',
    dialog,
    (dialog) =>
      html`<div class="stack">
          <h2 id="reveal-title">Your new API key</h2>
          <p id="reveal-warning" class="notice warning"><strong>Copy this key now. </strong>It is shown only once and cannot be shown again. If you lose it, revoke “${dialog.created.name}” and create a new key.</p>
          ${dialog.rolled ? html`<p id="reveal-roll">${rollNote(dialog.rolled)}</p>` : nothing}
          <div class="field">
            <label for="new-key">API key “${dialog.created.name}”</label>
            <textarea id="new-key" readonly rows="2" autocomplete="off" spellcheck="false" aria-describedby="reveal-warning" .value=${dialog.created.key}></textarea>
            <div class="copy-row">
              <button type="button" class="primary" @click=${copyKey}>Copy</button>
              <span class="copied" role="status">${dialog.copied ?? ''}</span>
            </div>
          </div>
          <div class="actions"><button type="button" @click=${closeReveal}>Done</button></div>
        </div>`,
    { onClose: closeReveal },
  );

const rollDialog = (dialog: DialogOf<'roll'> | null) =>
  frame(
    'roll',
    dialog,
    (dialog) =>
      html`<form id="roll-form" class="stack" novalidate @submit=${submitRoll}>
          <h2 id="roll-title">Roll API key “${dialog.key.name}”?</h2>
          <p id="roll-text">A new key replaces “${dialog.key.name}” (prefix ${dialog.key.prefix}), with the same name and KPIs, and is shown once. The old key keeps working for the time you choose, so you can deploy the new one without downtime.</p>
          <div class="field">
            <label for="roll-grace">The old key keeps working for</label>
            <select id="roll-grace" name="gracePeriodHours">
              <option value="0">no time: it stops now (the key leaked)</option>
              <option value="1">1 hour</option>
              <option value="24" selected>24 hours</option>
              <option value="72">3 days</option>
              <option value="168">7 days (the longest)</option>
            </select>
          </div>
          ${message('roll-error', 'error', dialog.error, 'alert')}
          <div class="actions">
            <button type="button" id="roll-cancel" @click=${() => openDialog.closed('roll')}>Cancel</button>
            <button type="submit" id="roll-confirm" class="primary" ?disabled=${dialog.busy}>Roll key</button>
          </div>
        </form>`,
    { describedBy: 'roll-text' },
  );

/** Until when an old key of a roll works, in words. */
const graceEnd = (key: Key) => {
  const end = key.expiresAt ? new Date(key.expiresAt) : null;
  return end ? `${dateOnly.format(end)} ${timeOnly.format(end)}` : 'the end of its grace period';
};

const revokeDialog = (dialog: DialogOf<'revoke'> | null) =>
  frame(
    'revoke',
    dialog,
    (dialog) =>
      html`<div class="stack">
          <h2 id="revoke-title">Revoke API key “${dialog.key.name}”?</h2>
          <p id="revoke-text">“${dialog.key.name}” (prefix ${dialog.key.prefix}) stops working immediately: requests with it are refused. A revoked key cannot be reactivated.${
            dialog.key.replacedBy ? ` Its replacement ${dialog.key.replacedBy.prefix}… keeps working.` : ''
          }</p>${
            dialog.alsoStops
              ? html`<p id="revoke-also" class="notice warning"><strong>The old key ${dialog.alsoStops.prefix}… stops working too.</strong> This key replaced it in a roll, and it works until ${graceEnd(dialog.alsoStops)} only while its replacement does: revoking this key ends its grace period now. To keep this key and stop the old one, revoke ${dialog.alsoStops.prefix}… instead.</p>`
              : nothing
          }
          ${message('revoke-error', 'error', dialog.error, 'alert')}
          <div class="actions">
            <button type="button" id="revoke-cancel" @click=${() => openDialog.closed('revoke')}>Cancel</button>
            <button type="button" id="revoke-confirm" class="danger" ?disabled=${dialog.busy} @click=${confirmRevoke}>Revoke key</button>
          </div>
        </div>`,
    { describedBy: dialog?.alsoStops ? 'revoke-text revoke-also' : 'revoke-text' },
  );

const sourcesDialog = (dialog: DialogOf<'sources'> | null) => {
  // The address of the key's last request, which one button makes its only allowed source.
  const ip = dialog?.key.usage?.lastSourceIp;
  return frame(
    'sources',
    dialog,
    (dialog) =>
      html`<form class="stack" @submit=${submitSources}>
          <h2 id="sources-title">Allowed sources of “${dialog.key.name}”</h2>
          <div class="field">
            <label for="sources-list">One address or CIDR block per line; empty: any address</label>
            <textarea id="sources-list" name="sources" rows="4" spellcheck="false" aria-describedby="sources-error" .value=${(dialog.key.allowedSources ?? []).join('\n')}></textarea>
            ${message('sources-error', 'error', dialog.error, 'alert')}
          </div>
          <div class="actions">
            ${ip ? html`<button type="button" @click=${() => restrictToLast(ip)}>Only ${ip}, its last source</button>` : nothing}
            <button type="button" @click=${() => openDialog.closed('sources')}>Cancel</button>
            <button type="submit" class="primary" ?disabled=${dialog.busy}>Save</button>
          </div>
        </form>`,
  );
};

export const dialogs = (state: State) =>
  html`${createDialog(openDialog.of(state, 'create'))}${revealDialog(openDialog.of(state, 'reveal'))}${rollDialog(
    openDialog.of(state, 'roll'),
  )}${revokeDialog(openDialog.of(state, 'revoke'))}${sourcesDialog(openDialog.of(state, 'sources'))}`;
