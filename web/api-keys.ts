/**
 * The API key management page (spec 2.7, 3; served at /platform/api-keys by functions/api-keys-page.ts).
 * Plain DOM, no framework. Tokens live in sessionStorage (this tab only), never in localStorage.
 * The JWT payload is decoded here for display only (e-mail, role); the service checks every request.
 */

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

interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  errors?: { path: string; message: string }[];
}

interface Session {
  token: string;
  refreshToken: string;
}

interface Claims {
  email?: string;
  role?: string;
  tenant_id?: string;
}

const NAME_MAX = 100;
const SESSION_KEY = 'strategy-service.api-keys.session';

/** The API lives next to this page: `<prefix>/platform/api-keys` → `<prefix>/api` (a deployed stage adds a prefix). */
const apiBase = `${location.pathname.replace(/\/platform\/api-keys\/?$/, '')}/api`;

const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

const ui = {
  status: byId('status'),
  session: byId('session'),
  who: byId('who'),
  signOut: byId<HTMLButtonElement>('sign-out'),
  signIn: byId('sign-in'),
  signInMessage: byId('sign-in-message'),
  signInForm: byId<HTMLFormElement>('sign-in-form'),
  email: byId<HTMLInputElement>('email'),
  password: byId<HTMLInputElement>('password'),
  signInError: byId('sign-in-error'),
  signInSubmit: byId<HTMLButtonElement>('sign-in-submit'),
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
// Small DOM helpers

const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<string, string>> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props))
    if (value !== undefined) element.setAttribute(name, value);
  element.append(...children);
  return element;
};

const showText = (element: HTMLElement, text: string | null) => {
  element.textContent = text ?? '';
  element.hidden = !text;
};

const announce = (text: string) => {
  ui.status.textContent = text;
};

const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

const timeCell = (iso: string | null, none: string): Node => {
  if (!iso) return document.createTextNode(none);
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return document.createTextNode(iso);
  return el(
    'time',
    { datetime: iso, title: iso },
    el('span', { class: 'date' }, dateOnly.format(date)),
    ' ',
    el('span', { class: 'clock' }, timeOnly.format(date)),
  );
};

// ---------------------------------------------------------------------------------------------------
// Session: tokens in sessionStorage, claims decoded for display only

let session: Session | null = null;

const loadSession = (): Session | null => {
  try {
    const stored = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Partial<Session> | null;
    return stored?.token && stored.refreshToken
      ? { token: stored.token, refreshToken: stored.refreshToken }
      : null;
  } catch {
    return null;
  }
};

const saveSession = (next: Session | null) => {
  session = next;
  if (next) sessionStorage.setItem(SESSION_KEY, JSON.stringify(next));
  else sessionStorage.removeItem(SESSION_KEY);
};

/** The JWT payload, base64url-decoded. Not verified: the service does that; this is for display only. */
const decodeClaims = (token: string): Claims => {
  try {
    const payload = token.split('.')[1] ?? '';
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return typeof claims === 'object' && claims ? (claims as Claims) : {};
  } catch {
    return {};
  }
};

const isAdmin = () => (session ? decodeClaims(session.token).role === 'ADMIN' : false);

// ---------------------------------------------------------------------------------------------------
// HTTP: problem+json errors, one refresh on 401, then back to the sign-in form

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
  }
}

/** Thrown after a 401 that a refresh did not cure; the sign-in form is already shown. */
class SessionEnded extends Error {}

const readProblem = async (response: Response): Promise<Problem> => {
  try {
    return (await response.json()) as Problem;
  } catch {
    return { status: response.status, title: response.statusText || `HTTP ${response.status}` };
  }
};

const post = (path: string, body: unknown, token?: string) =>
  fetch(`${apiBase}${path}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });

let refreshing: Promise<boolean> | null = null;

const refreshOnce = (): Promise<boolean> => {
  const current = session;
  if (!current) return Promise.resolve(false);
  refreshing ??= (async () => {
    try {
      const response = await post('/auth/refresh-token', { refreshToken: current.refreshToken });
      if (!response.ok) return false;
      const { token } = (await response.json()) as { token: string };
      saveSession({ ...current, token });
      return true;
    } catch {
      return false;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
};

const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const send = () => {
    const token = session?.token ?? '';
    const tenant = decodeClaims(token).tenant_id;
    return fetch(`${apiBase}${path}`, {
      method,
      headers: {
        Accept: 'application/json',
        Authorization: `Bearer ${token}`,
        ...(tenant ? { 'X-Tenant-ID': tenant } : {}),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  };
  let response = await send();
  if (response.status === 401 && (await refreshOnce())) response = await send();
  if (response.status === 401) {
    signOut('Your session has expired. Sign in again.');
    throw new SessionEnded();
  }
  if (!response.ok) throw new ApiError(response.status, await readProblem(response));
  return (response.status === 204 ? undefined : await response.json()) as T;
};

const describe = (error: unknown): string => {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError)
    return 'The service could not be reached. Check your connection and try again.';
  return 'Something went wrong. Try again.';
};

// ---------------------------------------------------------------------------------------------------
// Sign in / out

const showSignedIn = () => {
  const claims = decodeClaims(session?.token ?? '');
  ui.who.textContent = `${claims.email ?? 'Signed in'} · ${claims.role ?? 'unknown role'}`;
  ui.session.hidden = false;
  ui.signIn.hidden = true;
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

const signOut = (message: string | null = null) => {
  saveSession(null);
  for (const dialog of [ui.createDialog, ui.revealDialog, ui.revokeDialog]) if (dialog.open) dialog.close();
  ui.session.hidden = true;
  ui.keys.hidden = true;
  ui.body.replaceChildren();
  ui.signIn.hidden = false;
  ui.signInForm.reset();
  showText(ui.signInError, null);
  showText(ui.signInMessage, message);
  announce(message ?? 'Signed out.');
  ui.email.focus();
};

ui.signInForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const email = ui.email.value.trim();
  const password = ui.password.value;
  if (!email || !password) {
    showText(ui.signInError, 'Enter your e-mail and password.');
    (email ? ui.password : ui.email).focus();
    return;
  }
  ui.signInSubmit.disabled = true;
  showText(ui.signInError, null);
  try {
    const response = await post('/auth/login', { email, password });
    if (!response.ok) {
      const problem = await readProblem(response);
      showText(ui.signInError, problem.detail ?? problem.title ?? 'Sign-in failed.');
      ui.password.select();
      return;
    }
    const { token, refreshToken } = (await response.json()) as Session;
    saveSession({ token, refreshToken });
    ui.signInForm.reset();
    showText(ui.signInMessage, null);
    showSignedIn();
    await loadKeys();
    ui.keysTitle.focus();
  } catch (error) {
    showText(ui.signInError, describe(error));
  } finally {
    ui.signInSubmit.disabled = false;
  }
});

ui.signOut.addEventListener('click', () => signOut());

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
        { 'data-key-id': key.id, 'data-status': key.status },
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

session = loadSession();
if (session) {
  showSignedIn();
  void loadKeys();
} else {
  ui.signIn.hidden = false;
}
