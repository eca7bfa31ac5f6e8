/**
 * What changes the integration page's state: loading the list, an integration's panel (its runs, a
 * preview, a run now), and what the form and the delete confirmation send.
 */
import type {
  PullIntegrationPage,
  PullPreviewResponse,
  PullRunPage,
  PullRunResponse,
} from '../shared/api-types';
import { loadKpis, newestLoad } from '../shared/load';
import { ApiError, api, describe, isProblem, SessionEnded } from '../shared/shell';
import { focusById } from '../shared/view';
import { previewFieldErrors } from './field-errors';
import {
  type FormDialog,
  type Integration,
  type KpiOption,
  openDialog,
  PATH_FIELD_LABELS,
  type Panel,
  type PathField,
  page,
  TIMED,
} from './state';

// ---------------------------------------------------------------------------------------------------
// Loading

const listLoads = newestLoad(page);

/** The KPIs a binding can name. */
const loadKpiOptions = async (): Promise<KpiOption[]> =>
  (await loadKpis()).map((kpi) => ({ id: kpi.id, name: kpi.name, type: kpi.type }));

/** Integrations per page of the list: the page asks for more when the reader wants them. */
const LIST_PAGE = 100;

export const loadIntegrations = async () => {
  const wanted = listLoads();
  page.update({ loading: true, loadError: null });
  try {
    const [list, kpis] = await Promise.all([
      api<PullIntegrationPage>('GET', `/integrations/pull?limit=${LIST_PAGE}`),
      page.state.kpis.length > 0 ? page.state.kpis : loadKpiOptions(),
    ]);
    if (!wanted()) return;
    page.update({
      items: list.items,
      nextCursor: list.nextCursor ?? null,
      kpis,
      loading: false,
      featureOff: false,
    });
  } catch (error) {
    if (error instanceof SessionEnded || !wanted()) return;
    if (isProblem(error, 'feature-not-enabled')) {
      page.update({ loading: false, featureOff: true, items: null });
      return;
    }
    page.update({ loading: false, loadError: describe(error) });
  }
};

/** The next page of the list, after the ones shown. */
export const loadMoreIntegrations = async () => {
  const { nextCursor, items } = page.state;
  if (!nextCursor || !items) return;
  const wanted = listLoads();
  page.update({ loading: true, loadError: null });
  try {
    const next = await api<PullIntegrationPage>(
      'GET',
      `/integrations/pull?limit=${LIST_PAGE}&cursor=${encodeURIComponent(nextCursor)}`,
    );
    if (!wanted()) return;
    page.update({ items: [...items, ...next.items], nextCursor: next.nextCursor ?? null, loading: false });
  } catch (error) {
    if (error instanceof SessionEnded || !wanted()) return;
    page.update({ loading: false, loadError: describe(error) });
  }
};

export const signedIn = async (interactive: boolean) => {
  await loadIntegrations();
  const linked = location.hash.startsWith('#integration-')
    ? decodeURIComponent(location.hash.slice(13))
    : null;
  const integration = linked ? page.state.items?.find((item) => item.id === linked) : undefined;
  if (integration) {
    await togglePanel(integration);
    document.getElementById(`integration-${integration.id}`)?.scrollIntoView({ block: 'center' });
  } else if (interactive) focusById('integrations-title');
};

// ---------------------------------------------------------------------------------------------------
// An integration's panel: its runs, a preview, a run now

const patchPanel = (id: string, change: Partial<Panel>) => {
  const panel = page.state.panel;
  if (panel?.id === id) page.update({ panel: { ...panel, ...change } });
};

const loadRuns = async (id: string) => {
  try {
    const runs = await api<PullRunPage>('GET', `/integrations/pull/${encodeURIComponent(id)}/runs?limit=20`);
    patchPanel(id, { runs: runs.items });
  } catch (error) {
    if (!(error instanceof SessionEnded)) patchPanel(id, { error: describe(error), runs: [] });
  }
};

export const togglePanel = async (integration: Integration) => {
  if (page.state.panel?.id === integration.id) {
    page.update({ panel: null });
    return;
  }
  page.update({
    panel: { id: integration.id, previewing: false, preview: null, running: false, runs: null, error: null },
  });
  await loadRuns(integration.id);
};

export const previewNow = async (integration: Integration) => {
  patchPanel(integration.id, { previewing: true, preview: null, error: null });
  try {
    const preview = await api<PullPreviewResponse>(
      'POST',
      `/integrations/pull/${encodeURIComponent(integration.id)}/preview`,
    );
    patchPanel(integration.id, { previewing: false, preview });
    page.announce(`Preview of “${integration.name}” ready: nothing was stored.`);
  } catch (error) {
    if (!(error instanceof SessionEnded))
      patchPanel(integration.id, { previewing: false, error: describe(error) });
  }
};

export const runNowClicked = async (integration: Integration) => {
  patchPanel(integration.id, { running: true, error: null });
  try {
    const run = await api<PullRunResponse>(
      'POST',
      `/integrations/pull/${encodeURIComponent(integration.id)}/run`,
    );
    // What the preview said would be written is not what it would write now.
    patchPanel(integration.id, { running: false, preview: null });
    page.announce(
      `“${integration.name}” ran: ${run.outcome}, ${run.measurementsStored} measurement(s) stored.`,
    );
    await Promise.all([loadIntegrations(), loadRuns(integration.id)]);
  } catch (error) {
    if (!(error instanceof SessionEnded))
      patchPanel(integration.id, { running: false, error: describe(error) });
  }
};

// ---------------------------------------------------------------------------------------------------
// The form

let nextRow = 0;

export const openForm = (editing: Integration | null) => {
  page.clearMessages();
  const rows = editing ? editing.bindings.map((_, i) => i) : [0];
  nextRow = rows.length;
  page.update({
    dialog: {
      kind: 'form',
      editing,
      authType: editing?.auth.type ?? 'none',
      every: editing?.schedule.every ?? 'day',
      rows,
      busy: false,
      error: null,
      fieldErrors: [],
      previewing: false,
      preview: null,
      pathTarget: { key: rows[0] ?? 0, field: 'actual' },
    },
  });
  focusById('pull-name');
};

export const addRow = () => {
  const dialog = openDialog.of(page.state, 'form');
  if (!dialog) return;
  openDialog.patch('form', { rows: [...dialog.rows, nextRow++] });
  focusById(`kpi-${nextRow - 1}`);
};

export const removeRow = (key: number) => {
  const dialog = openDialog.of(page.state, 'form');
  if (dialog) openDialog.patch('form', { rows: dialog.rows.filter((row) => row !== key) });
  focusById('add-binding');
};

const text = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

/** The request body from the form; a secret left empty is not sent (a change keeps the stored one). */
const bodyOf = (form: FormData, dialog: FormDialog, kpis: KpiOption[]) => {
  const secret = (name: string) => (text(form, name) ? { [name]: text(form, name) } : {});
  const auth = (() => {
    switch (dialog.authType) {
      case 'bearer':
        return { type: 'bearer', ...secret('token') };
      case 'header':
        return { type: 'header', name: text(form, 'authName'), ...secret('value') };
      case 'basic':
        return { type: 'basic', username: text(form, 'username'), ...secret('password') };
      case 'oauth2_client_credentials':
        return {
          type: 'oauth2_client_credentials',
          tokenUrl: text(form, 'tokenUrl'),
          clientId: text(form, 'clientId'),
          ...secret('clientSecret'),
          ...(text(form, 'scope') ? { scope: text(form, 'scope') } : {}),
        };
      default:
        return { type: 'none' };
    }
  })();
  const headers = Object.fromEntries(
    text(form, 'headers')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .map((line) => {
        const colon = line.indexOf(':');
        return colon < 0 ? [line, ''] : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
      }),
  );
  const at = text(form, 'at');
  return {
    name: text(form, 'name'),
    url: text(form, 'url'),
    headers,
    auth,
    schedule: { every: dialog.every, ...(TIMED.includes(dialog.every) && at ? { at } : {}) },
    period: text(form, 'period') || 'month',
    bindings: dialog.rows.map((key) => {
      const kpiId = text(form, `kpi-${key}`);
      const optional = (name: string) =>
        text(form, `${name}-${key}`) ? { [name]: text(form, `${name}-${key}`) } : {};
      return {
        kpiId,
        kpiType: kpis.find((kpi) => kpi.id === kpiId)?.type ?? '',
        actual: text(form, `actual-${key}`),
        ...optional('target'),
        ...optional('forecast'),
      };
    }),
  };
};

/** The path field a clicked value fills in: the one focused last. */
export const pathFieldFocused = (key: number, field: PathField) => {
  const dialog = openDialog.of(page.state, 'form');
  if (dialog && (dialog.pathTarget.key !== key || dialog.pathTarget.field !== field))
    openDialog.patch('form', { pathTarget: { key, field } });
};

/** Puts a clicked value's path into the target field (the first binding's Actual if that row is gone). */
export const usePath = (path: string) => {
  const dialog = openDialog.of(page.state, 'form');
  if (!dialog) return;
  const target = dialog.rows.includes(dialog.pathTarget.key)
    ? dialog.pathTarget
    : { key: dialog.rows[0] ?? 0, field: 'actual' as const };
  const input = document.getElementById(`${target.field}-${target.key}`) as HTMLInputElement | null;
  if (!input) return;
  input.value = path;
  input.focus();
  page.announce(
    `${path} put into binding ${dialog.rows.indexOf(target.key) + 1}, ${PATH_FIELD_LABELS[target.field]}.`,
  );
};

/** Previews the definition as typed, before it is saved: the source's answer and each binding's values. */
export const previewForm = async () => {
  const dialog = openDialog.of(page.state, 'form');
  const form = document.getElementById('integration-form') as HTMLFormElement | null;
  if (!dialog || !form) return;
  const body = bodyOf(new FormData(form), dialog, page.state.kpis);
  openDialog.patch('form', { previewing: true, error: null, fieldErrors: [] });
  try {
    const preview = await api<PullPreviewResponse>('POST', '/integrations/pull/preview', body);
    openDialog.patch('form', {
      previewing: false,
      preview,
      fieldErrors: previewFieldErrors(preview.bindings),
    });
    page.announce(
      preview.error
        ? `Preview: the fetch failed: ${preview.error}`
        : `Preview ready: ${preview.measurements.length} of ${preview.bindings.length} binding(s) give a value; nothing was stored.`,
    );
  } catch (error) {
    if (error instanceof SessionEnded) return;
    const fieldErrors = error instanceof ApiError ? (error.problem.errors ?? []) : [];
    openDialog.patch('form', { previewing: false, preview: null, error: describe(error), fieldErrors });
  }
};

export const submitForm = async (event: SubmitEvent) => {
  event.preventDefault();
  const dialog = openDialog.of(page.state, 'form');
  if (!dialog) return;
  const body = bodyOf(new FormData(event.currentTarget as HTMLFormElement), dialog, page.state.kpis);
  openDialog.patch('form', { busy: true, error: null, fieldErrors: [] });
  try {
    const saved = dialog.editing
      ? await api<Integration>('PATCH', `/integrations/pull/${encodeURIComponent(dialog.editing.id)}`, body)
      : await api<Integration>('POST', '/integrations/pull', body);
    openDialog.closed('form');
    await loadIntegrations();
    page.announce(
      dialog.editing
        ? `Integration “${saved.name}” saved.`
        : `Integration “${saved.name}” created: it runs at the next pass of the scheduler.`,
    );
    focusById('integrations-title');
  } catch (error) {
    if (error instanceof SessionEnded) return;
    const fieldErrors = error instanceof ApiError ? (error.problem.errors ?? []) : [];
    openDialog.patch('form', { busy: false, error: describe(error), fieldErrors });
  }
};

// ---------------------------------------------------------------------------------------------------
// Delete

export const openDelete = (integration: Integration) => {
  page.clearMessages();
  page.update({ dialog: { kind: 'delete', integration, busy: false, error: null } });
  focusById('delete-cancel');
};

export const confirmDelete = async () => {
  const dialog = openDialog.of(page.state, 'delete');
  if (!dialog) return;
  openDialog.patch('delete', { busy: true, error: null });
  try {
    await api<void>('DELETE', `/integrations/pull/${encodeURIComponent(dialog.integration.id)}`);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    if (!(error instanceof ApiError && error.status === 404)) {
      openDialog.patch('delete', { busy: false, error: describe(error) });
      return;
    }
  }
  openDialog.closed('delete');
  if (page.state.panel?.id === dialog.integration.id) page.update({ panel: null });
  await loadIntegrations();
  page.announce(`Integration “${dialog.integration.name}” deleted.`);
  focusById('integrations-title');
};
