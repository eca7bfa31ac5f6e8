/**
 * What every page under /platform/ shares: sign-in and session handling, calls to the API with one
 * refresh on 401, and the page's frame (header with the navigation, sign-in form, live region). A page
 * is one state object rendered by one lit-html view: `createPage` holds the state (the page's
 * state.ts, which its actions import), `start` gives it its view (the page's index.ts, which imports
 * the views), and every `update` renders the whole page from the state, so nothing on screen can
 * disagree with it. Actions thus never import views, and the imports of a page's folder point one way.
 *
 * Tokens live in sessionStorage (this tab only, shared by the pages of this origin), never in
 * localStorage. The JWT payload is decoded here for display only (e-mail, role); the service checks
 * every request.
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { keyed } from 'lit-html/directives/keyed.js';
import type { AccessClaims } from '../../lib/auth/tokens';
import type { LoginResponse, ProblemResponse, RefreshResponse } from './api-types';
import { modal } from './dialog';
import { APP_PAGES, type PageName } from './pages';
import { focusById, message } from './view';

interface Session {
  token: string;
  refreshToken: string;
}

/** What the page shows of a token: decoded for display only, so each claim may be missing. */
type Claims = Partial<Pick<AccessClaims, 'sub' | 'email' | 'role' | 'tenant_id'>>;

/** The frame's part of a page's state. */
export interface ShellState {
  /** The signed-in user's claims (display only); null while signed out. */
  claims: Claims | null;
  /** The page's polite live region (`#status`). */
  status: string;
  /** Above the sign-in form: why it is shown ("Signed out.", "Your session has expired."). */
  signInMessage: string | null;
  signInError: string | null;
  signingIn: boolean;
  /** A new number renders a new, empty sign-in form: typed passwords do not outlive a sign-in. */
  signInForm: number;
  /** The header's "Change password" dialog while open: its problem, if any, and whether it is sending. */
  password: { error: string | null; busy: boolean } | null;
}

export type PageState<S> = S & { shell: ShellState };

const SESSION_KEY = 'strategy-service.session';

/**
 * The API lives next to the pages: `<prefix>/platform/<page>` → `<prefix>/api` (a deployed stage adds
 * a prefix).
 */
const apiBase = `${location.pathname.replace(/\/platform\/[a-z-]+\/?$/, '')}/api`;

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

export const isAdmin = (shell: ShellState) => shell.claims?.role === 'ADMIN';

/** Whether the user may change KPIs, targets and cycles: ADMIN and EDITOR; VIEWER reads. */
export const canEdit = (shell: ShellState) =>
  shell.claims?.role === 'ADMIN' || shell.claims?.role === 'EDITOR';

// ---------------------------------------------------------------------------------------------------
// HTTP: problem+json errors, one refresh on 401, then back to the sign-in form

/** A problem as read: a proxy's error page in front of the service is no problem+json. */
type Problem = Partial<ProblemResponse>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
  }
}

/**
 * The service answered with the problem of this type, named by its slug (`feature-not-enabled`): the
 * error catalog gives each type one status, so the type alone says what happened.
 */
export const isProblem = (error: unknown, type: string): error is ApiError =>
  error instanceof ApiError && (error.problem.type?.endsWith(`/${type}`) ?? false);

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
      const { token } = (await response.json()) as RefreshResponse;
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
  // A validation problem names each field it refuses: the page says which and why.
  if (error instanceof ApiError)
    return [error.message, ...(error.problem.errors ?? []).map((e) => `${e.path}: ${e.message}`)].join(' ');
  if (error instanceof TypeError)
    return 'The service could not be reached. Check your connection and try again.';
  return 'Something went wrong. Try again.';
};

// ---------------------------------------------------------------------------------------------------
// The page: one state, one view

export interface PageDefinition<S extends object> {
  name: PageName;
  /** The page's state while signed out; signing out returns to it, so nothing of a session stays. */
  initial: S;
}

/** What a page shows and does once it starts. */
export interface PageView<S extends object> {
  title: string;
  /** Under the title; a function when it changes with the state (a list and its detail). */
  lead: TemplateResult | ((state: PageState<S>) => TemplateResult);
  /** What the page shows while signed in, under its title and lead. */
  content(state: PageState<S>): TemplateResult;
  /** The page's dialogs: rendered always (closed while signed out), so that each stays one element. */
  dialogs?(state: PageState<S>): TemplateResult;
  /** The document's title in this state. */
  documentTitle?(state: PageState<S>): string;
  /**
   * The user is signed in: load the page's data. `interactive` is true right after the sign-in form
   * (move focus into the content), false for a session restored on load.
   */
  signedIn(interactive: boolean): Promise<void>;
}

export interface Page<S extends object> {
  /** The current state. After an `await`, read it again: the user may have moved on meanwhile. */
  readonly state: PageState<S>;
  /** Merges `change` into the state and renders the page from it, synchronously. */
  update(change: Partial<PageState<S>>): void;
  /** The page's polite live region says `text`. */
  announce(text: string): void;
  /**
   * Messages belong to the moment they were said: cleared at the start of every new action, so that
   * "Signed out." or an old error never lingers next to a newer state.
   */
  clearMessages(): void;
  /** Renders the page with `view` and restores the session of this tab, or shows the sign-in form. */
  start(view: PageView<S>): void;
}

const signedOutShell = (signInMessage: string | null, form: number): ShellState => ({
  claims: null,
  status: '',
  signInMessage,
  signInError: null,
  signingIn: false,
  signInForm: form,
  password: null,
});

/** The page being shown: the frame's sign-in and sign-out act on it. */
let shown: {
  state: PageState<object>;
  update(change: Partial<PageState<object>>): void;
  reset(shell: ShellState): void;
  signedIn(interactive: boolean): Promise<void>;
} | null = null;

const updateShell = (change: Partial<ShellState>) => {
  if (shown) shown.update({ shell: { ...shown.state.shell, ...change } });
};

const noMessages = { status: '', signInMessage: null, signInError: null } as const;

export const signOut = (text: string | null = null) => {
  // The service ends the session too: its refresh token stops working even where it was copied.
  if (session) post('/auth/logout', { refreshToken: session.refreshToken }).catch(() => undefined);
  saveSession(null);
  if (!shown) return;
  // One place for the message: the sign-in form's own live region.
  shown.reset(signedOutShell(text ?? 'Signed out.', shown.state.shell.signInForm + 1));
  focusById('email');
};

/**
 * A route that answers as a login does (accepting a link, changing one's password): its session
 * becomes this tab's. A refusal is an ApiError with the service's problem.
 */
export const openSession = async (path: string, body: unknown) => {
  const response = await post(path, body);
  if (!response.ok) throw new ApiError(response.status, await readProblem(response));
  const { token, refreshToken } = (await response.json()) as LoginResponse;
  saveSession({ token, refreshToken });
};

/** Every other session of the user ends; the answer is this tab's new one. */
const submitPassword = async (event: SubmitEvent) => {
  event.preventDefault();
  const data = new FormData(event.currentTarget as HTMLFormElement);
  updateShell({ password: { error: null, busy: true } });
  try {
    const next = await api<LoginResponse>('POST', '/auth/change-password', {
      currentPassword: data.get('currentPassword'),
      newPassword: data.get('newPassword'),
    });
    saveSession({ token: next.token, refreshToken: next.refreshToken });
    updateShell({ password: null, status: 'Password changed; your other sessions ended.' });
  } catch (error) {
    if (!(error instanceof SessionEnded)) updateShell({ password: { error: describe(error), busy: false } });
  }
};

const closePassword = () => updateShell({ password: null });

const passwordDialog = ({ password }: ShellState) =>
  html`<dialog aria-labelledby="pw-title" ${modal(password !== null)} @close=${closePassword}>${keyed(
    password === null,
    html`<form class="stack" @submit=${submitPassword}><h2 id="pw-title">Change password</h2>
<div class="field"><label for="pw-current">Current password</label><input id="pw-current" name="currentPassword" type="password" autocomplete="current-password" required /></div>
<div class="field"><label for="pw-new">New password (12 characters or more)</label><input id="pw-new" name="newPassword" type="password" autocomplete="new-password" minlength="12" required /></div>
${message('pw-error', 'error', password?.error ?? null, 'alert')}
<div><button class="primary" id="pw-submit" ?disabled=${password?.busy}>Change password</button> <button type="button" @click=${closePassword}>Cancel</button></div></form>`,
  )}</dialog>`;

const submitSignIn = async (event: SubmitEvent) => {
  event.preventDefault();
  const data = new FormData(event.currentTarget as HTMLFormElement);
  const email = String(data.get('email') ?? '').trim();
  const password = String(data.get('password') ?? '');
  if (!email || !password) {
    updateShell({ signInError: 'Enter your e-mail and password.' });
    focusById(email ? 'password' : 'email');
    return;
  }
  updateShell({ ...noMessages, signingIn: true });
  try {
    const response = await post('/auth/login', { email, password });
    if (!response.ok) {
      const problem = await readProblem(response);
      updateShell({ signInError: problem.detail ?? problem.title ?? 'Sign-in failed.', signingIn: false });
      (document.getElementById('password') as HTMLInputElement | null)?.select();
      return;
    }
    const { token, refreshToken } = (await response.json()) as LoginResponse;
    saveSession({ token, refreshToken });
    const form = shown?.state.shell.signInForm ?? 0;
    updateShell({ ...noMessages, claims: decodeClaims(token), signingIn: false, signInForm: form + 1 });
    await shown?.signedIn(true);
  } catch (error) {
    updateShell({ signInError: describe(error), signingIn: false });
  }
};

const header = (shell: ShellState, name: PageName) => {
  const { claims } = shell;
  const here = (page: PageName) => (page === name ? 'page' : nothing);
  return html`<header class="bar">
    <p class="brand">Strategy service</p>
    ${
      claims
        ? html`<nav id="nav" class="nav" aria-label="Pages">
            ${APP_PAGES.filter((p) => !('adminOnly' in p) || isAdmin(shell)).map(
              (p) => html`<a href=${p.page} aria-current=${here(p.page)}>${p.label}</a>`,
            )}
          </nav>
          <div id="session" class="session">
            <span id="who">${claims.email ?? 'Signed in'} · ${claims.role ?? 'unknown role'}</span>
            <button type="button" id="change-password" @click=${() => updateShell({ password: { error: null, busy: false } })}>Change password</button>
            <button type="button" id="sign-out" @click=${() => signOut()}>Sign out</button>
          </div>`
        : nothing
    }
  </header>`;
};

const signIn = (shell: ShellState) =>
  html`<section id="sign-in" aria-labelledby="sign-in-title" ?hidden=${shell.claims !== null}>
    <h2 id="sign-in-title">Sign in</h2>
    ${message('sign-in-message', 'notice', shell.signInMessage, 'status')}
    ${keyed(
      shell.signInForm,
      html`<form id="sign-in-form" class="stack" novalidate @submit=${submitSignIn}>
        <div class="field">
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autocomplete="username" required />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </div>
        ${message('sign-in-error', 'error', shell.signInError, 'alert')}
        <div>
          <button type="submit" class="primary" id="sign-in-submit" ?disabled=${shell.signingIn}>Sign in</button>
        </div>
      </form>`,
    )}
  </section>`;

export const createPage = <S extends object>(definition: PageDefinition<S>): Page<S> => {
  // The page renders before its script element (the body's only content), always at the same place:
  // lit-html keeps the rendered part on this node.
  const before = document.currentScript ?? undefined;
  let state: PageState<S> = { ...definition.initial, shell: signedOutShell(null, 0) };
  // Nothing is rendered before `start` gives the page its view.
  let shownView: PageView<S> | null = null;
  const view = () => {
    if (!shownView) return;
    const { shell } = state;
    if (shownView.documentTitle) document.title = shownView.documentTitle(state);
    render(
      html`${header(shell, definition.name)}
        <main id="main">
          <h1>${shownView.title}</h1>
          <p class="lead">${typeof shownView.lead === 'function' ? shownView.lead(state) : shownView.lead}</p>
          <p id="status" class="status" role="status" aria-live="polite">${shell.status}</p>
          ${signIn(shell)} ${shell.claims ? shownView.content(state) : nothing}
        </main>
        ${shownView.dialogs?.(state) ?? nothing}${passwordDialog(shell)}`,
      document.body,
      { renderBefore: before },
    );
  };
  const update = (change: Partial<PageState<S>>) => {
    state = { ...state, ...change };
    view();
  };
  return {
    get state() {
      return state;
    },
    update,
    announce: (text) => updateShell({ status: text }),
    clearMessages: () => updateShell(noMessages),
    start: (pageView) => {
      shownView = pageView;
      shown = {
        get state() {
          return state;
        },
        update: (change) => update(change as Partial<PageState<S>>),
        reset: (shell) => {
          state = { ...definition.initial, shell };
          view();
        },
        signedIn: pageView.signedIn,
      };
      session = loadSession();
      if (!session) {
        view();
        return;
      }
      update({ shell: { ...state.shell, claims: decodeClaims(session.token) } } as Partial<PageState<S>>);
      void pageView.signedIn(false);
    },
  };
};
