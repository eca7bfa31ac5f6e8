/**
 * The API key management page (spec 2.7, 3; served at /platform/api-keys by functions/api-keys-page.ts).
 * Plain DOM, no framework. Sign-in, session, API calls and navigation are shared with the KPI page
 * (web/shared/shell.ts).
 */
import {
  ApiError,
  announce,
  api,
  byId,
  currentClaims,
  describe,
  el,
  isAdmin,
  SessionEnded,
  showText,
  startPage,
  timeCell,
} from './shared/shell';

type KeyStatus = 'active' | 'revoked' | 'expired';

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  status: KeyStatus;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface CreatedApiKey extends ApiKey {
  key: string;
}

const NAME_MAX = 100;

const ui = {
  keys: byId('keys'),
  keysTitle: byId('keys-title'),
  createOpen: byId<HTMLButtonElement>('create-open'),
  roleNotice: byId('role-notice'),
  limitNotice: byId('limit-notice'),
  listError: byId('list-error'),
  empty: byId('empty'),
  table: byId<HTMLTableElement>('keys-table'),
  head: byId<HTMLTableRowElement>('keys-head'),
  body: byId<HTMLTableSectionElement>('keys-body'),
  createDialog: byId<HTMLDialogElement>('create-dialog'),
  createForm: byId<HTMLFormElement>('create-form'),
  keyName: byId<HTMLInputElement>('key-name'),
  keyNameError: byId('key-name-error'),
  keyExpires: byId<HTMLInputElement>('key-expires'),
  keyExpiresError: byId('key-expires-error'),
  createError: byId('create-error'),
  createCancel: byId<HTMLButtonElement>('create-cancel'),
  createSubmit: byId<HTMLButtonElement>('create-submit'),
  revealDialog: byId<HTMLDialogElement>('reveal-dialog'),
  revokeDialog: byId<HTMLDialogElement>('revoke-dialog'),
  revokeText: byId('revoke-text'),
  revokeError: byId('revoke-error'),
  revokeCancel: byId<HTMLButtonElement>('revoke-cancel'),
  revokeConfirm: byId<HTMLButtonElement>('revoke-confirm'),
};

// ---------------------------------------------------------------------------------------------------
// Signed in / out (the shell calls these)

const showSignedIn = () => {
  const claims = currentClaims();
  ui.keys.hidden = false;
  const admin = isAdmin();
  ui.createOpen.hidden = !admin;
  showText(
    ui.roleNotice,
    admin
      ? null
      : `You are signed in with the ${claims.role ?? 'unknown'} role. Only administrators (ADMIN) can create ` +
          'or revoke API keys, so you can see the list but not change it.',
  );
  setLimit(null);
};

const signedOut = () => {
  for (const dialog of [ui.createDialog, ui.revealDialog, ui.revokeDialog]) if (dialog.open) dialog.close();
  ui.keys.hidden = true;
  ui.body.replaceChildren();
};

// ---------------------------------------------------------------------------------------------------
// The list

let keys: ApiKey[] = [];

/** Plan maximum reached: the service's problem detail, shown next to the disabled create button. */
const setLimit = (detail: string | null) => {
  showText(ui.limitNotice, detail);
  ui.createOpen.disabled = Boolean(detail);
  if (detail) ui.createOpen.setAttribute('aria-describedby', 'limit-notice');
  else ui.createOpen.removeAttribute('aria-describedby');
};

const render = () => {
  const admin = isAdmin();
  const actionsHead = ui.head.querySelector('[data-actions]');
  if (admin && !actionsHead) {
    ui.head.append(
      el('th', { scope: 'col', 'data-actions': '' }, el('span', { class: 'visually-hidden' }, 'Actions')),
    );
  } else if (!admin && actionsHead) actionsHead.remove();

  ui.table.hidden = keys.length === 0;
  showText(
    ui.empty,
    keys.length > 0
      ? null
      : admin
        ? 'Your organization has no API keys yet. Create one to let an external system push measurements.'
        : 'Your organization has no API keys yet.',
  );
  ui.body.replaceChildren(
    ...keys.map((key) => {
      const row = el(
        'tr',
        { id: `key-${key.id}`, 'data-key-id': key.id, 'data-status': key.status },
        el('th', { scope: 'row', 'data-label': 'Name' }, key.name),
        el('td', { 'data-label': 'Prefix' }, el('code', {}, key.prefix)),
        el('td', { 'data-label': 'Status' }, el('span', { class: `badge ${key.status}` }, key.status)),
        el('td', { 'data-label': 'Created' }, timeCell(key.createdAt, '—')),
        el('td', { 'data-label': 'Expires' }, timeCell(key.expiresAt, 'Never')),
        el('td', { 'data-label': 'Last used' }, timeCell(key.lastUsedAt, 'Never')),
      );
      if (admin) {
        const cell = el('td', { class: 'row-actions' });
        if (key.status === 'active') {
          const button = el(
            'button',
            { type: 'button', class: 'danger', 'aria-label': `Revoke ${key.name}` },
            'Revoke',
          );
          button.addEventListener('click', () => openRevoke(key));
          cell.append(button);
        }
        row.append(cell);
      }
      return row;
    }),
  );
};

const loadKeys = async () => {
  ui.keys.setAttribute('aria-busy', 'true');
  showText(ui.listError, null);
  try {
    const result = await api<{ items: ApiKey[] }>('GET', '/api-keys');
    keys = result.items;
    render();
  } catch (error) {
    if (!(error instanceof SessionEnded))
      showText(ui.listError, `The keys could not be loaded: ${describe(error)}`);
  } finally {
    ui.keys.removeAttribute('aria-busy');
  }
};

// ---------------------------------------------------------------------------------------------------
// Create, and show the raw key once

const fieldError = (input: HTMLInputElement, output: HTMLElement, message: string | null) => {
  showText(output, message);
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
};

const today = () => {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
};

/** `YYYY-MM-DD` → the end of that day in the user's time zone, as an ISO 8601 instant. */
const endOfDay = (value: string): Date | null => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 23, 59, 59);
  return Number.isNaN(date.getTime()) ? null : date;
};

ui.createOpen.addEventListener('click', () => {
  ui.createForm.reset();
  fieldError(ui.keyName, ui.keyNameError, null);
  fieldError(ui.keyExpires, ui.keyExpiresError, null);
  showText(ui.createError, null);
  ui.keyExpires.min = today();
  ui.createDialog.showModal();
  ui.keyName.focus();
});

ui.createCancel.addEventListener('click', () => ui.createDialog.close());

ui.createForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = ui.keyName.value.trim();
  const nameProblem =
    name.length === 0
      ? 'Enter a name.'
      : name.length > NAME_MAX
        ? `Use at most ${NAME_MAX} characters.`
        : null;
  fieldError(ui.keyName, ui.keyNameError, nameProblem);
  let expiresAt: string | undefined;
  let expiresProblem: string | null = null;
  if (ui.keyExpires.value) {
    const end = endOfDay(ui.keyExpires.value);
    if (!end) expiresProblem = 'Enter a valid date.';
    else if (end.getTime() <= Date.now()) expiresProblem = 'Choose today or a later date.';
    else expiresAt = end.toISOString();
  }
  fieldError(ui.keyExpires, ui.keyExpiresError, expiresProblem);
  showText(ui.createError, null);
  if (nameProblem || expiresProblem) {
    (nameProblem ? ui.keyName : ui.keyExpires).focus();
    return;
  }

  ui.createSubmit.disabled = true;
  try {
    const created = await api<CreatedApiKey>('POST', '/api-keys', expiresAt ? { name, expiresAt } : { name });
    ui.createDialog.close();
    reveal(created);
    void loadKeys();
  } catch (error) {
    if (error instanceof SessionEnded) return;
    if (
      error instanceof ApiError &&
      error.status === 409 &&
      error.problem.type?.endsWith('/api-key-limit-reached')
    ) {
      ui.createDialog.close();
      setLimit(error.message);
      ui.limitNotice.focus();
      return;
    }
    if (error instanceof ApiError && error.problem.errors?.length) {
      const other: string[] = [];
      for (const { path, message } of error.problem.errors) {
        if (path === 'name') fieldError(ui.keyName, ui.keyNameError, message);
        else if (path === 'expiresAt') fieldError(ui.keyExpires, ui.keyExpiresError, message);
        else other.push(message);
      }
      showText(ui.createError, other.length > 0 ? other.join(' ') : error.message);
    } else showText(ui.createError, describe(error));
  } finally {
    ui.createSubmit.disabled = false;
  }
});

/**
 * The raw key, built into the dialog only while it is open and removed from the DOM when it closes:
 * the service never returns it again.
 */
const reveal = (created: CreatedApiKey) => {
  const field = el('input', {
    id: 'new-key',
    type: 'text',
    readonly: '',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'reveal-warning',
  });
  field.value = created.key;
  const copy = el('button', { type: 'button', class: 'primary' }, 'Copy');
  const copied = el('span', { class: 'copied', role: 'status' });
  const done = el('button', { type: 'button' }, 'Done');
  copy.addEventListener('click', async () => {
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      copied.textContent = 'Copied to the clipboard.';
    } catch {
      copied.textContent = 'Press Ctrl+C (⌘C) to copy the selected key.';
    }
  });
  done.addEventListener('click', () => ui.revealDialog.close());

  ui.revealDialog.replaceChildren(
    el(
      'div',
      { class: 'stack' },
      el('h2', { id: 'reveal-title' }, 'Your new API key'),
      el(
        'p',
        { id: 'reveal-warning', class: 'notice warning' },
        el('strong', {}, 'Copy this key now. '),
        `It is shown only once and cannot be shown again. If you lose it, revoke “${created.name}” and create a new key.`,
      ),
      el(
        'div',
        { class: 'field' },
        el('label', { for: 'new-key' }, `API key “${created.name}”`),
        el('div', { class: 'copy-row' }, field, copy),
        copied,
      ),
      el('div', { class: 'actions' }, done),
    ),
  );
  ui.revealDialog.showModal();
  field.focus();
  field.select();
  announce(`API key “${created.name}” created.`);
};

ui.revealDialog.addEventListener('close', () => {
  ui.revealDialog.replaceChildren();
  ui.keysTitle.focus();
});

// ---------------------------------------------------------------------------------------------------
// Revoke, after confirmation

let pending: ApiKey | null = null;

const openRevoke = (key: ApiKey) => {
  pending = key;
  ui.revokeText.textContent =
    `“${key.name}” (prefix ${key.prefix}) stops working immediately: requests with it are refused. ` +
    'A revoked key cannot be reactivated.';
  ui.revokeDialog.querySelector('h2')?.replaceChildren(`Revoke API key “${key.name}”?`);
  showText(ui.revokeError, null);
  ui.revokeConfirm.disabled = false;
  ui.revokeDialog.showModal();
  ui.revokeCancel.focus();
};

ui.revokeCancel.addEventListener('click', () => ui.revokeDialog.close());
ui.revokeDialog.addEventListener('close', () => {
  pending = null;
});

ui.revokeConfirm.addEventListener('click', async () => {
  const key = pending;
  if (!key) return;
  ui.revokeConfirm.disabled = true;
  try {
    await api<void>('DELETE', `/api-keys/${encodeURIComponent(key.id)}`);
    ui.revokeDialog.close();
    setLimit(null);
    await loadKeys();
    announce(`API key “${key.name}” revoked.`);
    ui.keysTitle.focus();
  } catch (error) {
    if (error instanceof SessionEnded) return;
    if (error instanceof ApiError && error.status === 404) {
      ui.revokeDialog.close();
      await loadKeys();
      announce(`API key “${key.name}” no longer exists.`);
      ui.keysTitle.focus();
      return;
    }
    showText(ui.revokeError, describe(error));
    ui.revokeConfirm.disabled = false;
  }
});

// ---------------------------------------------------------------------------------------------------
// Start

/**
 * The KPI page links a measurement's key to its row here (`api-keys#key-<id>`). The rows arrive after
 * the page loaded, so the browser cannot scroll to the fragment itself: mark, show and focus the row.
 */
const showLinkedKey = (): boolean => {
  const row = location.hash.startsWith('#key-') ? document.getElementById(location.hash.slice(1)) : null;
  if (!row) return false;
  row.setAttribute('data-linked', '');
  row.tabIndex = -1;
  row.scrollIntoView({ block: 'center' });
  row.focus();
  return true;
};

startPage('api-keys', {
  signedIn: async (interactive) => {
    showSignedIn();
    await loadKeys();
    if (!showLinkedKey() && interactive) ui.keysTitle.focus();
  },
  signedOut,
});
