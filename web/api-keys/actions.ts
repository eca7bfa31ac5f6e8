/**
 * What changes the key page's state: loading the keys and a key's usage, pointing out a key, and what
 * the dialogs send (create, roll, revoke).
 */
import type {
  ApiKeyPage,
  ApiKeyUsageResponse,
  CreatedApiKeyResponse,
  RevokedApiKeyResponse,
  RolledApiKeyResponse,
} from '../shared/api-types';
import { loadEvery, loadKpis, newestLoad } from '../shared/load';
import { ApiError, api, describe, isProblem, SessionEnded } from '../shared/shell';
import { focusById } from '../shared/view';
import { type Dialog, inGraceBefore, type Key, NAME_MAX, openDialog, page, type UsagePanel } from './state';

// ---------------------------------------------------------------------------------------------------
// Loading

const keyLoads = newestLoad(page);

/** KPI names by id, for the keys' scopes. */
const loadKpiNames = async () => new Map((await loadKpis()).map((kpi) => [kpi.id, kpi.name] as const));

export const loadKeys = async () => {
  const wanted = keyLoads();
  page.update({ loading: true, loadError: null });
  try {
    const known = page.state.kpiNames;
    const [pages, kpiNames] = await Promise.all([
      loadEvery<ApiKeyPage>('/api-keys?limit=1000'),
      known.size > 0 ? known : loadKpiNames(),
    ]);
    if (!wanted()) return;
    page.update({
      keys: pages.flatMap((keys) => keys.items),
      plan: pages[0].plan ?? null,
      kpiNames,
      loading: false,
    });
  } catch (error) {
    if (error instanceof SessionEnded || !wanted()) return;
    page.update({ loading: false, loadError: describe(error) });
  }
};

/** Retrying keeps the keyboard in the list: the button goes away while the keys load. */
export const retry = () => {
  focusById('keys-title');
  void loadKeys();
};

/** Counts each key's usage loads, so that only the latest answer is shown when several overlap. */
const usageLoads = new Map<string, number>();

/** Changes a key's usage panel if it is still open (the user may have closed it meanwhile). */
const patchUsage = (id: string, change: Partial<UsagePanel>) => {
  const panel = page.state.usage.get(id);
  if (!panel) return;
  page.update({ usage: new Map(page.state.usage).set(id, { ...panel, ...change }) });
};

/** The key's usage of the last 30 days, by day and by refusal reason, into its open panel. */
const loadUsage = async (id: string) => {
  const load = (usageLoads.get(id) ?? 0) + 1;
  usageLoads.set(id, load);
  patchUsage(id, { loading: true, error: null });
  const current = () => usageLoads.get(id) === load && page.state.usage.has(id);
  try {
    const usage = await api<ApiKeyUsageResponse>('GET', `/api-keys/${encodeURIComponent(id)}/usage`);
    if (!current()) return;
    patchUsage(id, { loading: false, usage });
    const name = page.state.keys?.find((key) => key.id === id)?.name ?? 'the key';
    page.announce(`Usage of “${name}” loaded.`);
  } catch (error) {
    if (error instanceof SessionEnded || !current()) return;
    patchUsage(id, { loading: false, error: describe(error) });
  }
};

/** Retrying keeps the keyboard in the panel: the button goes away while the usage loads. */
export const retryUsage = (id: string) => {
  focusById(`usage-title-${id}`);
  void loadUsage(id);
};

/**
 * Opens or closes a key's usage panel (a disclosure: the focus stays on its button). Opening loads the
 * usage afresh: the key may have been used since.
 */
export const toggleUsage = (key: Key) => {
  const usage = new Map(page.state.usage);
  if (usage.delete(key.id)) {
    page.update({ usage });
    return;
  }
  page.update({ usage: usage.set(key.id, { loading: true, error: null, usage: null }) });
  void loadUsage(key.id);
};

/** Points out a key's row: marked, scrolled to the middle and focused. False if there is no such row. */
export const showKey = (id: string): boolean => {
  if (!page.state.keys?.some((key) => key.id === id)) return false;
  page.update({ highlighted: id });
  const row = document.getElementById(`key-${id}`);
  row?.scrollIntoView({ block: 'center' });
  row?.focus({ preventScroll: true });
  return true;
};

export const signedIn = async (interactive: boolean) => {
  await loadKeys();
  // The KPI page links a measurement's key to its row here (`api-keys#key-<id>`). The rows arrive
  // after the page loaded, so the browser cannot scroll to the fragment itself.
  const linked = location.hash.startsWith('#key-') ? decodeURIComponent(location.hash.slice(5)) : null;
  if (!(linked && showKey(linked)) && interactive) focusById('keys-title');
};

// ---------------------------------------------------------------------------------------------------
// Create

/** Opens a dialog over a page without messages or a failed load, the keyboard in its first field. */
const open = (dialog: Dialog, field: string) => {
  page.clearMessages();
  page.update({ loadError: null, dialog });
  focusById(field);
};

export const openCreate = () =>
  open({ kind: 'create', busy: false, nameError: null, expiresError: null, error: null }, 'key-name');

/** `YYYY-MM-DD` → the end of that day in the user's time zone. */
const endOfDay = (value: string): Date | null => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 23, 59, 59);
  return Number.isNaN(date.getTime()) ? null : date;
};

export const submitCreate = async (event: SubmitEvent) => {
  event.preventDefault();
  const form = new FormData(event.currentTarget as HTMLFormElement);
  const name = String(form.get('name') ?? '').trim();
  const expires = String(form.get('expiresAt') ?? '');
  const nameError =
    name.length === 0
      ? 'Enter a name.'
      : name.length > NAME_MAX
        ? `Use at most ${NAME_MAX} characters.`
        : null;
  let expiresAt: string | undefined;
  let expiresError: string | null = null;
  if (expires) {
    const end = endOfDay(expires);
    if (!end) expiresError = 'Enter a valid date.';
    else if (end.getTime() <= Date.now()) expiresError = 'Choose today or a later date.';
    else expiresAt = end.toISOString();
  }
  openDialog.patch('create', { nameError, expiresError, error: null });
  if (nameError || expiresError) {
    focusById(nameError ? 'key-name' : 'key-expires');
    return;
  }

  openDialog.patch('create', { busy: true });
  try {
    const created = await api<CreatedApiKeyResponse>(
      'POST',
      '/api-keys',
      expiresAt ? { name, expiresAt } : { name },
    );
    const { key: _shownOnce, ...listedKey } = created;
    reveal(created, null, [...(page.state.keys ?? []), listedKey]);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    if (isProblem(error, 'api-key-limit-reached')) {
      // Someone else took the last slot meanwhile: say so in the dialog and keep what was typed.
      openDialog.patch('create', { busy: false, error: error.message });
      void loadKeys();
      return;
    }
    if (error instanceof ApiError && error.problem.errors?.length) {
      const other: string[] = [];
      const fields = { nameError: null as string | null, expiresError: null as string | null };
      for (const { path, message } of error.problem.errors) {
        if (path === 'name') fields.nameError = message;
        else if (path === 'expiresAt') fields.expiresError = message;
        else other.push(message);
      }
      openDialog.patch('create', {
        busy: false,
        ...fields,
        error: other.length > 0 ? other.join(' ') : error.message,
      });
    } else openDialog.patch('create', { busy: false, error: describe(error) });
  }
};

// ---------------------------------------------------------------------------------------------------
// A new key, shown once

/**
 * Shows a new key once. The list gets the key (without the raw key) at once, and is reloaded: closing
 * the dialog points out its row.
 */
const reveal = (created: CreatedApiKeyResponse, rolled: Key | null, keys: Key[]) => {
  page.update({ keys, dialog: { kind: 'reveal', created, rolled, copied: null } });
  const field = document.getElementById('new-key') as HTMLTextAreaElement | null;
  field?.focus();
  field?.select();
  page.announce(rolled ? `API key “${created.name}” rolled.` : `API key “${created.name}” created.`);
  void loadKeys();
};

export const copyKey = async () => {
  const dialog = openDialog.of(page.state, 'reveal');
  if (!dialog) return;
  (document.getElementById('new-key') as HTMLTextAreaElement | null)?.select();
  try {
    await navigator.clipboard.writeText(dialog.created.key);
    openDialog.patch('reveal', { copied: 'Copied to the clipboard.' });
  } catch {
    openDialog.patch('reveal', { copied: 'Press Ctrl+C (⌘C) to copy the selected key.' });
  }
};

/** Done, or Escape: the raw key leaves the page, and the new key's row is pointed out. */
export const closeReveal = () => {
  const dialog = openDialog.of(page.state, 'reveal');
  if (!dialog) return;
  page.update({ dialog: null });
  if (!showKey(dialog.created.id)) focusById('keys-title');
};

// ---------------------------------------------------------------------------------------------------
// Revoke

export const openRevoke = (key: Key) =>
  open(
    { kind: 'revoke', key, alsoStops: inGraceBefore(key, page.state.keys), busy: false, error: null },
    'revoke-cancel',
  );

export const confirmRevoke = async () => {
  const dialog = openDialog.of(page.state, 'revoke');
  if (!dialog) return;
  const { key } = dialog;
  openDialog.patch('revoke', { busy: true, error: null });
  try {
    const { graceEnded } = await api<RevokedApiKeyResponse>(
      'DELETE',
      `/api-keys/${encodeURIComponent(key.id)}`,
    );
    openDialog.closed('revoke');
    await loadKeys();
    page.announce(
      graceEnded
        ? `API key “${key.name}” revoked; the old key ${graceEnded.prefix}… stopped working too.`
        : `API key “${key.name}” revoked.`,
    );
    focusById('keys-title');
  } catch (error) {
    if (error instanceof SessionEnded) return;
    if (error instanceof ApiError && error.status === 404) {
      openDialog.closed('revoke');
      await loadKeys();
      page.announce(`API key “${key.name}” no longer exists.`);
      focusById('keys-title');
      return;
    }
    openDialog.patch('revoke', { busy: false, error: describe(error) });
  }
};

// ---------------------------------------------------------------------------------------------------
// Roll: a new key with the same name and scope; the old one works through a grace period.

export const openRoll = (key: Key) => open({ kind: 'roll', key, busy: false, error: null }, 'roll-grace');

export const submitRoll = async (event: SubmitEvent) => {
  event.preventDefault();
  const dialog = openDialog.of(page.state, 'roll');
  if (!dialog) return;
  const grace = Number(new FormData(event.currentTarget as HTMLFormElement).get('gracePeriodHours'));
  openDialog.patch('roll', { busy: true, error: null });
  try {
    const rolled = await api<RolledApiKeyResponse>(
      'POST',
      `/api-keys/${encodeURIComponent(dialog.key.id)}/roll`,
      { gracePeriodHours: grace },
    );
    const { key: _shownOnce, previous, ...next } = rolled;
    // The old key keeps the use it had: the roll's answer does not carry it.
    const keys = (page.state.keys ?? []).map((key) =>
      key.id === previous.id ? { ...previous, usage: key.usage } : key,
    );
    reveal(rolled, previous, [...keys, next]);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    openDialog.patch('roll', { busy: false, error: describe(error) });
    if (error instanceof ApiError && error.status !== 400) void loadKeys();
  }
};

// ---------------------------------------------------------------------------------------------------
// Sources: the addresses a key works from. The service reads each address, and names a refused one.

export const openSources = (key: Key) =>
  open({ kind: 'sources', key, busy: false, error: null }, 'sources-list');

/** Sets the key's sources (null: any address), then shows the list as it is now. */
const saveSources = async (allowedSources: string[] | null) => {
  const dialog = openDialog.of(page.state, 'sources');
  if (!dialog) return;
  const { key } = dialog;
  openDialog.patch('sources', { busy: true, error: null });
  try {
    await api('PATCH', `/api-keys/${encodeURIComponent(key.id)}`, { allowedSources });
    openDialog.closed('sources');
    await loadKeys();
    page.announce(`Sources of “${key.name}” saved.`);
    showKey(key.id);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    const errors = error instanceof ApiError ? error.problem.errors : undefined;
    openDialog.patch('sources', {
      busy: false,
      error: errors?.length ? errors.map((e) => e.message).join(' ') : describe(error),
    });
    if (error instanceof ApiError && error.status !== 400) void loadKeys();
  }
};

export const submitSources = (event: SubmitEvent) => {
  event.preventDefault();
  const list = String(new FormData(event.currentTarget as HTMLFormElement).get('sources'))
    .split(/[\s,]+/)
    .filter(Boolean);
  void saveSources(list.length > 0 ? list : null);
};

/** One step: the key works only from the address of its last request. */
export const restrictToLast = (ip: string) => saveSources([ip]);
