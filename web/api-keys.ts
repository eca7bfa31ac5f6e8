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
  clearMessages as clearShellMessages,
  currentClaims,
  dateOnly,
  describe,
  el,
  isAdmin,
  SessionEnded,
  showText,
  startPage,
  timeCell,
  timeOnly,
} from './shared/shell';

type KeyStatus = 'active' | 'revoked' | 'expired';

type Actor = { type: 'user'; userId: string; email: string | null } | { type: 'operator'; name: string };

interface KeyRef {
  id: string;
  prefix: string;
}

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  status: KeyStatus;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Issue 13: the KPIs the key may push to; null for every KPI. */
  kpiIds: string[] | null;
  createdBy: Actor | null;
  revokedBy: Actor | null;
  rolledAt: string | null;
  /** Set on a rolled key: it works until `expiresAt`, the end of its grace period. */
  replacedBy: KeyRef | null;
  replaces: KeyRef | null;
}

interface CreatedApiKey extends ApiKey {
  key: string;
}

interface RolledApiKey extends CreatedApiKey {
  previous: ApiKey;
}

interface Plan {
  name: string;
  /** Active keys the plan allows; null: unlimited. */
  apiKeyLimit: number | null;
  features: string[];
}

interface KeyList {
  items: ApiKey[];
  nextCursor?: string;
  plan: Plan | null;
}

const NAME_MAX = 100;
/** Keys expiring within this many days say so in the list (issue 13). */
const EXPIRY_WARNING_DAYS = 14;
const PUSH_FEATURE = 'kpi_push_measurement';

const ui = {
  keys: byId('keys'),
  keysTitle: byId('keys-title'),
  createOpen: byId<HTMLButtonElement>('create-open'),
  roleNotice: byId('role-notice'),
  limitNotice: byId('limit-notice'),
  planUsage: byId('plan-usage'),
  pushWarning: byId('push-warning'),
  inactive: byId<HTMLDetailsElement>('inactive'),
  inactiveSummary: byId('inactive-summary'),
  inactiveBody: byId<HTMLTableSectionElement>('inactive-body'),
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
  rollDialog: byId<HTMLDialogElement>('roll-dialog'),
  rollForm: byId<HTMLFormElement>('roll-form'),
  rollText: byId('roll-text'),
  rollGrace: byId<HTMLSelectElement>('roll-grace'),
  rollError: byId('roll-error'),
  rollCancel: byId<HTMLButtonElement>('roll-cancel'),
  rollConfirm: byId<HTMLButtonElement>('roll-confirm'),
  revokeDialog: byId<HTMLDialogElement>('revoke-dialog'),
  revokeText: byId('revoke-text'),
  revokeError: byId('revoke-error'),
  revokeCancel: byId<HTMLButtonElement>('revoke-cancel'),
  revokeConfirm: byId<HTMLButtonElement>('revoke-confirm'),
};

/** The shell's messages and this page's list error: cleared at the start of every action (issue 13). */
const clearMessages = () => {
  clearShellMessages();
  showText(ui.listError, null);
};

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

/** "expires in 3 days" (or hours, or minutes) for an active key expiring within 14 days, else null. */
const expiresSoon = (key: ApiKey, now = Date.now()): string | null => {
  if (key.status !== 'active' || !key.expiresAt) return null;
  const left = Date.parse(key.expiresAt) - now;
  if (!(left > 0) || left > EXPIRY_WARNING_DAYS * 86_400_000) return null;
  if (left >= 86_400_000) return `expires in ${plural(Math.round(left / 86_400_000), 'day')}`;
  if (left >= 3_600_000) return `expires in ${plural(Math.round(left / 3_600_000), 'hour')}`;
  return `expires in ${plural(Math.max(1, Math.round(left / 60_000)), 'minute')}`;
};

const actorText = (actor: Actor | null): string | null =>
  actor === null ? null : actor.type === 'user' ? (actor.email ?? 'a former user') : `operator ${actor.name}`;

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
  for (const dialog of [ui.createDialog, ui.revealDialog, ui.revokeDialog, ui.rollDialog])
    if (dialog.open) dialog.close();
  ui.keys.hidden = true;
  ui.body.replaceChildren();
};

// ---------------------------------------------------------------------------------------------------
// The list

let keys: ApiKey[] = [];
let plan: Plan | null = null;
/** KPI names by id, to show a key's scope; empty if they could not be loaded (ids are shown then). */
let kpiNames = new Map<string, string>();

/** Plan maximum reached: why, next to the disabled create button (before the admin types, issue 13). */
const setLimit = (detail: string | null) => {
  showText(ui.limitNotice, detail);
  ui.createOpen.disabled = Boolean(detail);
  if (detail) ui.createOpen.setAttribute('aria-describedby', 'limit-notice');
  else ui.createOpen.removeAttribute('aria-describedby');
};

/** A key counts against the plan while it is active and not rolled (its replacement holds the slot). */
const holdsSlot = (key: ApiKey) => key.status === 'active' && key.replacedBy === null;

/** "2 of 3 keys used", the push warning, and the create button's state, from the list and the plan. */
const renderPlan = () => {
  if (!plan) {
    showText(ui.planUsage, null);
    showText(ui.pushWarning, null);
    setLimit(null);
    return;
  }
  const used = keys.filter(holdsSlot).length;
  const limit = plan.apiKeyLimit;
  showText(
    ui.planUsage,
    limit === null
      ? `${plural(used, 'key')} in use · unlimited on the ${plan.name} plan`
      : `${used} of ${limit} keys used on the ${plan.name} plan`,
  );
  showText(
    ui.pushWarning,
    plan.features.includes(PUSH_FEATURE)
      ? null
      : `Your organization’s ${plan.name} plan does not include pushing measurements (${PUSH_FEATURE}). ` +
          'Keys can be created, but every push with them is refused until the plan is upgraded.',
  );
  setLimit(
    isAdmin() && limit !== null && used >= limit
      ? `All ${limit} keys of the ${plan.name} plan are in use. Revoke a key, or upgrade the plan, to create ` +
          'another. Rolling a key does not need a free slot.'
      : null,
  );
};

const scopeText = (kpiIds: string[] | null) => {
  if (kpiIds === null) return 'All KPIs';
  const names = kpiIds.map((id) => kpiNames.get(id) ?? id);
  return names.length <= 3
    ? names.join(', ')
    : `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`;
};

const actionButton = (label: string, name: string, className: string, onClick: () => void) => {
  const button = el('button', { type: 'button', class: className, 'aria-label': `${label} ${name}` }, label);
  button.addEventListener('click', onClick);
  return button;
};

const activeRow = (key: ApiKey, admin: boolean, now: number) => {
  const soon = expiresSoon(key, now);
  const status = el(
    'td',
    { 'data-label': 'Status' },
    el('span', { class: `badge ${key.status}` }, key.status),
  );
  if (key.replacedBy) {
    status.append(' ', el('span', { class: 'note' }, 'replaced by ', el('code', {}, key.replacedBy.prefix)));
  }
  const expires = el('td', { 'data-label': 'Expires' }, timeCell(key.expiresAt, 'Never'));
  if (soon) expires.append(' ', el('span', { class: 'soon' }, soon));
  const row = el(
    'tr',
    {
      id: `key-${key.id}`,
      'data-key-id': key.id,
      'data-status': key.status,
      ...(key.replacedBy ? { 'data-rolled': '' } : {}),
    },
    el('th', { scope: 'row', 'data-label': 'Name' }, key.name),
    el('td', { 'data-label': 'Prefix' }, el('code', {}, key.prefix)),
    status,
    el('td', { 'data-label': 'KPIs' }, scopeText(key.kpiIds)),
    el('td', { 'data-label': 'Created' }, timeCell(key.createdAt, '—')),
    expires,
    el('td', { 'data-label': 'Last used' }, timeCell(key.lastUsedAt, 'Never')),
  );
  if (admin) {
    const cell = el('td', { class: 'row-actions' });
    if (!key.replacedBy) cell.append(actionButton('Roll', key.name, '', () => openRoll(key)));
    cell.append(actionButton('Revoke', key.name, 'danger', () => openRevoke(key)));
    row.append(cell);
  }
  return row;
};

/** Revoked and expired keys, with when they ended and who revoked them (issue 13). */
const inactiveRow = (key: ApiKey) => {
  const ended = el('td', { 'data-label': 'Ended' });
  if (key.status === 'revoked') {
    ended.append('Revoked ', timeCell(key.revokedAt, '—'));
    const by = actorText(key.revokedBy);
    if (by) ended.append(el('span', { class: 'note' }, ` by ${by}`));
  } else ended.append('Expired ', timeCell(key.expiresAt, '—'));
  return el(
    'tr',
    { id: `key-${key.id}`, 'data-key-id': key.id, 'data-status': key.status },
    el('th', { scope: 'row', 'data-label': 'Name' }, key.name),
    el('td', { 'data-label': 'Prefix' }, el('code', {}, key.prefix)),
    el('td', { 'data-label': 'Status' }, el('span', { class: `badge ${key.status}` }, key.status)),
    ended,
    el('td', { 'data-label': 'Created' }, timeCell(key.createdAt, '—')),
    el('td', { 'data-label': 'Last used' }, timeCell(key.lastUsedAt, 'Never')),
  );
};

const render = () => {
  const admin = isAdmin();
  const actionsHead = ui.head.querySelector('[data-actions]');
  if (admin && !actionsHead) {
    ui.head.append(
      el('th', { scope: 'col', 'data-actions': '' }, el('span', { class: 'visually-hidden' }, 'Actions')),
    );
  } else if (!admin && actionsHead) actionsHead.remove();

  const now = Date.now();
  const active = keys.filter((key) => key.status === 'active');
  const inactive = keys.filter((key) => key.status !== 'active');
  ui.table.hidden = active.length === 0;
  showText(
    ui.empty,
    active.length > 0
      ? null
      : `Your organization has no active API keys${inactive.length > 0 ? '' : ' yet'}.` +
          (admin ? ' Create one to let an external system push measurements.' : ''),
  );
  ui.body.replaceChildren(...active.map((key) => activeRow(key, admin, now)));
  ui.inactive.hidden = inactive.length === 0;
  ui.inactiveSummary.textContent = `Show inactive (${inactive.length})`;
  ui.inactiveBody.replaceChildren(...inactive.map(inactiveRow));
  renderPlan();
};

/** Every page of a list endpoint. */
const loadAll = async <T>(path: string): Promise<{ items: T[]; first: unknown }> => {
  const items: T[] = [];
  let first: unknown;
  let cursor: string | undefined;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page = await api<{ items: T[]; nextCursor?: string }>(
      'GET',
      cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path,
    );
    first ??= page;
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return { items, first };
};

const loadKpiNames = async () => {
  try {
    const { items } = await loadAll<{ id: string; name: string }>('/kpis?limit=1000');
    kpiNames = new Map(items.map((kpi) => [kpi.id, kpi.name]));
  } catch {
    kpiNames = new Map(); // the scope shows KPI ids then; the list itself still loads
  }
};

const loadKeys = async () => {
  ui.keys.setAttribute('aria-busy', 'true');
  showText(ui.listError, null);
  try {
    const [{ items, first }] = await Promise.all([
      loadAll<ApiKey>('/api-keys?limit=1000'),
      kpiNames.size === 0 ? loadKpiNames() : undefined,
    ]);
    keys = items;
    plan = (first as KeyList).plan;
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
  clearMessages();
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
      // Someone else took the last slot meanwhile: say so in the dialog and keep what was typed.
      showText(ui.createError, error.message);
      void loadKeys();
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
const reveal = (created: CreatedApiKey, rolled?: ApiKey) => {
  // A textarea, not an input: the whole key wraps onto two lines on a 375 px phone instead of being cut
  // off at about 21 characters (issue 13), and it can still be selected and copied in one go.
  const field = el('textarea', {
    id: 'new-key',
    readonly: '',
    rows: '2',
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

  const old = rolled?.expiresAt ? new Date(rolled.expiresAt) : null;
  const rollNote = rolled
    ? el(
        'p',
        { id: 'reveal-roll' },
        old && old.getTime() > Date.now()
          ? `The old key ${rolled.prefix}… keeps working until ${dateOnly.format(old)} ${timeOnly.format(old)}: deploy the new key before then.`
          : `The old key ${rolled.prefix}… has stopped working.`,
      )
    : null;
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
      ...(rollNote ? [rollNote] : []),
      el(
        'div',
        { class: 'field' },
        el('label', { for: 'new-key' }, `API key “${created.name}”`),
        field,
        el('div', { class: 'copy-row' }, copy, copied),
      ),
      el('div', { class: 'actions' }, done),
    ),
  );
  ui.revealDialog.showModal();
  field.focus();
  field.select();
  announce(rolled ? `API key “${created.name}” rolled.` : `API key “${created.name}” created.`);
};

ui.revealDialog.addEventListener('close', () => {
  ui.revealDialog.replaceChildren();
  ui.keysTitle.focus();
});

// ---------------------------------------------------------------------------------------------------
// Revoke, after confirmation

let pending: ApiKey | null = null;

const openRevoke = (key: ApiKey) => {
  clearMessages();
  pending = key;
  ui.revokeText.textContent =
    `“${key.name}” (prefix ${key.prefix}) stops working immediately: requests with it are refused. ` +
    'A revoked key cannot be reactivated.' +
    (key.replacedBy ? ` Its replacement ${key.replacedBy.prefix}… keeps working.` : '');
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
// Roll (issue 13): a new key with the same name and scope; the old one works through a grace period

let rolling: ApiKey | null = null;

const openRoll = (key: ApiKey) => {
  clearMessages();
  rolling = key;
  ui.rollDialog.querySelector('h2')?.replaceChildren(`Roll API key “${key.name}”?`);
  ui.rollText.textContent =
    `A new key replaces “${key.name}” (prefix ${key.prefix}), with the same name and KPIs, and is shown ` +
    'once. The old key keeps working for the time you choose, so you can deploy the new one without downtime.';
  ui.rollForm.reset();
  showText(ui.rollError, null);
  ui.rollConfirm.disabled = false;
  ui.rollDialog.showModal();
  ui.rollGrace.focus();
};

ui.rollCancel.addEventListener('click', () => ui.rollDialog.close());
ui.rollDialog.addEventListener('close', () => {
  rolling = null;
});

ui.rollForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = rolling;
  if (!key) return;
  ui.rollConfirm.disabled = true;
  try {
    const rolled = await api<RolledApiKey>('POST', `/api-keys/${encodeURIComponent(key.id)}/roll`, {
      gracePeriodHours: Number(ui.rollGrace.value),
    });
    ui.rollDialog.close();
    reveal(rolled, rolled.previous);
    void loadKeys();
  } catch (error) {
    if (error instanceof SessionEnded) return;
    showText(ui.rollError, describe(error));
    ui.rollConfirm.disabled = false;
    if (error instanceof ApiError && error.status !== 400) void loadKeys();
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
