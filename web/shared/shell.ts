/**
 * What every page under /platform/ shares (issue 15): sign-in and session handling, calls to the API
 * with one refresh on 401, the navigation between the pages, and small DOM helpers. Each page's script
 * imports this module; web/shared/header.html and sign-in.html hold the markup it drives.
 *
 * Tokens live in sessionStorage (this tab only, shared by the pages of this origin), never in
 * localStorage. The JWT payload is decoded here for display only (e-mail, role); the service checks
 * every request.
 */

export interface Problem {
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

const SESSION_KEY = 'strategy-service.session';

/**
 * The API lives next to the pages: `<prefix>/platform/<page>` → `<prefix>/api` (a deployed stage adds
 * a prefix).
 */
const apiBase = `${location.pathname.replace(/\/platform\/[a-z-]+\/?$/, '')}/api`;

export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

const ui = {
  status: byId('status'),
  nav: byId('nav'),
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
};

// ---------------------------------------------------------------------------------------------------
// Small DOM helpers

export const el = <K extends keyof HTMLElementTagNameMap>(
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

export const showText = (element: HTMLElement, text: string | null) => {
  element.textContent = text ?? '';
  element.hidden = !text;
};

/** The page's polite live region (`#status`). */
export const announce = (text: string) => {
  ui.status.textContent = text;
};

export const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
export const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** An instant as date and time in the user's time zone, the ISO value in `datetime` and `title`. */
export const timeCell = (iso: string | null, none: string): Node => {
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

/** The signed-in user's claims (display only). */
export const currentClaims = (): Claims => decodeClaims(session?.token ?? '');

export const isAdmin = () => (session ? currentClaims().role === 'ADMIN' : false);

// ---------------------------------------------------------------------------------------------------
// HTTP: problem+json errors, one refresh on 401, then back to the sign-in form

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
  }
}

/** Thrown after a 401 that a refresh did not cure; the sign-in form is already shown. */
export class SessionEnded extends Error {}

const readProblem = async (response: Response): Promise<Problem> => {
  try {
    return (await response.json()) as Problem;
  } catch {
    return { status: response.status, title: response.statusText || `HTTP ${response.status}` };
  }
};

const post = (path: string, body: unknown) =>
  fetch(`${apiBase}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
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

/** A call to the API as the signed-in user; a 401 refreshes the token once, then ends the session. */
export const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
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

export const describe = (error: unknown): string => {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError)
    return 'The service could not be reached. Check your connection and try again.';
  return 'Something went wrong. Try again.';
};

// ---------------------------------------------------------------------------------------------------
// Sign in / out, navigation

export interface PageHooks {
  /**
   * The user is signed in: show the page's content and load it. `interactive` is true right after the
   * sign-in form (move focus into the content), false for a session restored on load.
   */
  signedIn(interactive: boolean): Promise<void>;
  /** The session ended: hide and forget the page's content, close its dialogs. */
  signedOut(): void;
}

let hooks: PageHooks | null = null;

const showSignedIn = () => {
  const claims = currentClaims();
  ui.who.textContent = `${claims.email ?? 'Signed in'} · ${claims.role ?? 'unknown role'}`;
  ui.session.hidden = false;
  ui.nav.hidden = false;
  ui.signIn.hidden = true;
};

/**
 * Issue 13: messages belong to the moment they were said. Cleared on sign-in and at the start of every
 * new action (pages call it too), so "Signed out." or an old error never lingers next to a newer state.
 */
export const clearMessages = () => {
  ui.status.textContent = '';
  for (const element of [ui.signInMessage, ui.signInError]) showText(element, null);
};

export const signOut = (message: string | null = null) => {
  saveSession(null);
  hooks?.signedOut();
  ui.session.hidden = true;
  ui.nav.hidden = true;
  ui.signIn.hidden = false;
  ui.signInForm.reset();
  clearMessages();
  // One place for the message: the sign-in form's own live region (issue 13: it was shown twice).
  showText(ui.signInMessage, message ?? 'Signed out.');
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
  clearMessages();
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
    clearMessages();
    showSignedIn();
    await hooks?.signedIn(true);
  } catch (error) {
    showText(ui.signInError, describe(error));
  } finally {
    ui.signInSubmit.disabled = false;
  }
});

ui.signOut.addEventListener('click', () => signOut());

/**
 * Starts the shared part of a page: marks its link in the navigation as the current page and either
 * restores the session of this tab or shows the sign-in form.
 */
export const startPage = (name: string, pageHooks: PageHooks) => {
  hooks = pageHooks;
  for (const link of Array.from(ui.nav.querySelectorAll<HTMLAnchorElement>('a[data-page]'))) {
    if (link.dataset.page === name) link.setAttribute('aria-current', 'page');
  }
  session = loadSession();
  if (session) {
    showSignedIn();
    void hooks.signedIn(false);
  } else {
    ui.signIn.hidden = false;
  }
};
