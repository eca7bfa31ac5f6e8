/**
 * The pull integration page (served at /platform/integrations by functions/integrations-page.ts). One
 * state, rendered by lit-html: the list with each integration's status, last and next run; for ADMINs
 * the form to create and change one (secrets write-only: a stored secret is shown as set, and kept
 * unless a new one is typed), a preview with the extracted values beside each binding, a run now, and
 * for every role the run log. Sign-in, session, API calls and navigation are shared with the other
 * pages (web/shared/shell.ts).
 */
import { html, nothing } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';
import type {
  KpiPage,
  PullIntegrationPage,
  PullIntegrationResponse,
  PullPreviewResponse,
  PullRunPage,
  PullRunResponse,
} from './shared/api-types';
import { ApiError, api, createPage, describe, isAdmin, type PageState, SessionEnded } from './shared/shell';
import { focusById, loadFailed, loadingNotice, message, modal, timeCell } from './shared/view';

type Integration = PullIntegrationResponse;
type AuthType = Integration['auth']['type'];
type Every = Integration['schedule']['every'];
interface KpiOption {
  id: string;
  name: string;
  type: string;
}

/** The open panel of one integration: its preview and its run log. */
interface Panel {
  id: string;
  previewing: boolean;
  preview: PullPreviewResponse | null;
  running: boolean;
  runs: PullRunResponse[] | null;
  error: string | null;
}

/** The form's structure; the values typed stay in the form until it is sent. */
interface FormDialog {
  kind: 'form';
  editing: Integration | null;
  authType: AuthType;
  every: Every;
  /** Keys of the binding rows (a row keeps its typed values while others are added or removed). */
  rows: number[];
  busy: boolean;
  error: string | null;
  fieldErrors: { path: string; message: string }[];
}
type Dialog = FormDialog | { kind: 'delete'; integration: Integration; busy: boolean; error: string | null };

interface Pulls {
  items: Integration[] | null;
  kpis: KpiOption[];
  loading: boolean;
  loadError: string | null;
  /** The plan lacks kpi_api_integration: the page says so instead of a list. */
  featureOff: boolean;
  panel: Panel | null;
  dialog: Dialog | null;
}

type State = PageState<Pulls>;

const FEATURE = 'kpi_api_integration';
const EVERY_LABELS: Record<Every, string> = {
  '15m': 'every 15 minutes',
  hour: 'every hour',
  day: 'every day',
  week: 'every week (Mondays)',
  month: 'every month (the 1st)',
};
const AUTH_LABELS: Record<AuthType, string> = {
  none: 'None',
  bearer: 'Bearer token',
  header: 'API key header',
  basic: 'Basic (user name and password)',
  oauth2_client_credentials: 'OAuth 2.0 client credentials',
};
const TIMED: Every[] = ['day', 'week', 'month'];

const scheduleText = ({ every, at }: Integration['schedule']) =>
  `${EVERY_LABELS[every]}${at ? ` at ${at} UTC` : TIMED.includes(every) ? ' at 00:00 UTC' : ''}`;

const kpiName = (state: State, id: string) => state.kpis.find((kpi) => kpi.id === id)?.name ?? id;

const numberText = (value: number | null) => (value === null ? '—' : new Intl.NumberFormat().format(value));

// ---------------------------------------------------------------------------------------------------
// The view

const lastRunText = (integration: Integration) => {
  const run = integration.lastRun;
  if (!run) return 'Not run yet';
  return html`${timeCell(run.startedAt, '—')} <span class="badge">${run.outcome}</span>${
    run.errorClass
      ? html` <span class="note">${run.errorClass}${run.httpStatus ? ` (HTTP ${run.httpStatus})` : ''}</span>`
      : nothing
  }`;
};

const row = (state: State, integration: Integration, admin: boolean) => {
  const open = state.panel?.id === integration.id;
  return html`<tr id="integration-${integration.id}" data-integration-id=${integration.id} data-status=${integration.status}>
      <th scope="row" data-label="Name">${integration.name}</th>
      <td data-label="Status"><span class="badge ${integration.status}">${integration.status}</span></td>
      <td data-label="Schedule">${scheduleText(integration.schedule)}</td>
      <td data-label="Last run">${lastRunText(integration)}</td>
      <td data-label="Next run">${timeCell(integration.nextRunAt, 'Not scheduled')}</td>
      <td class="row-actions">
        <button type="button" aria-expanded=${open ? 'true' : 'false'} aria-controls=${open ? `panel-${integration.id}` : nothing} aria-label="Runs of ${integration.name}" @click=${() => togglePanel(integration)}>Runs</button>${
          admin
            ? html`<button type="button" aria-label="Edit ${integration.name}" @click=${() => openForm(integration)}>Edit</button><button type="button" class="danger" aria-label="Delete ${integration.name}" @click=${() => openDelete(integration)}>Delete</button>`
            : nothing
        }
      </td>
    </tr>${open ? panelRow(state, integration, admin) : nothing}`;
};

const previewTable = (state: State, preview: PullPreviewResponse) =>
  html`<p id="preview-summary">${
    preview.error
      ? html`<span class="problem">The fetch failed: ${preview.error}</span> (${preview.errorClass})`
      : html`The source answered HTTP ${preview.httpStatus} in ${preview.durationMs} ms. ${preview.measurements.length} measurement(s) would be written.`
  }</p>
    ${
      preview.bindings.length > 0
        ? html`<table id="preview-table">
            <caption>Extracted values by binding (nothing stored)</caption>
            <thead><tr><th scope="col">KPI</th><th scope="col">Period</th><th scope="col">Actual</th><th scope="col">Target</th><th scope="col">Forecast</th><th scope="col">Problem</th></tr></thead>
            <tbody>${preview.bindings.map(
              (binding) => html`<tr data-kpi-id=${binding.kpiId}>
                <th scope="row" data-label="KPI">${kpiName(state, binding.kpiId)}</th>
                <td data-label="Period">${binding.periodStart ? `${binding.periodStart} – ${binding.periodEnd}` : '—'}</td>
                <td data-label="Actual" class="extracted">${numberText(binding.actual)}</td>
                <td data-label="Target" class="extracted">${numberText(binding.target)}</td>
                <td data-label="Forecast" class="extracted">${numberText(binding.forecast)}</td>
                <td data-label="Problem" class=${binding.problem ? 'problem' : ''}>${binding.problem ?? 'None'}</td>
              </tr>`,
            )}</tbody>
          </table>`
        : nothing
    }`;

const runLog = (state: State, runs: PullRunResponse[]) =>
  runs.length === 0
    ? html`<p id="runs-empty" class="empty">No runs yet.</p>`
    : html`<table id="runs-table">
        <caption>Run log, newest first</caption>
        <thead><tr><th scope="col">Started</th><th scope="col">Trigger</th><th scope="col">Outcome</th><th scope="col">HTTP</th><th scope="col">Stored</th><th scope="col">Details</th></tr></thead>
        <tbody>${runs.map(
          (run) => html`<tr data-run-id=${run.id} data-outcome=${run.outcome}>
            <th scope="row" data-label="Started">${timeCell(run.startedAt, '—')}</th>
            <td data-label="Trigger">${run.trigger}</td>
            <td data-label="Outcome"><span class="badge">${run.outcome}</span></td>
            <td data-label="HTTP">${run.httpStatus ?? '—'}</td>
            <td data-label="Stored">${run.measurementsStored}</td>
            <td data-label="Details">${run.error ? html`<span class="problem">${run.errorClass ? `${run.errorClass}: ` : ''}${run.error}</span>` : nothing}${run.bindings
              .filter((binding) => binding.problem)
              .map(
                (binding) =>
                  html`<div class="problem">${kpiName(state, binding.kpiId)}: ${binding.problem}</div>`,
              )}</td>
          </tr>`,
        )}</tbody>
      </table>`;

const panelRow = (state: State, integration: Integration, admin: boolean) => {
  const panel = state.panel as Panel;
  return html`<tr class="panel-row"><td colspan="6">
    <section id="panel-${integration.id}" class="panel" aria-labelledby="panel-title-${integration.id}" aria-busy=${panel.previewing || panel.running ? 'true' : nothing}>
      <h3 id="panel-title-${integration.id}" tabindex="-1">“${integration.name}”</h3>
      <p class="hint">GET <code>${integration.url}</code> · ${AUTH_LABELS[integration.auth.type]} · period ${typeof integration.period === 'string' ? integration.period : 'read from the answer'}</p>
      ${
        admin
          ? html`<div class="actions">
              <button type="button" id="preview-button" ?disabled=${panel.previewing} @click=${() => previewNow(integration)}>Preview</button>
              <button type="button" id="run-button" class="primary" ?disabled=${panel.running} @click=${() => runNowClicked(integration)}>Run now</button>
            </div>`
          : nothing
      }
      ${message(`panel-error`, 'error', panel.error, 'alert')}
      ${panel.previewing ? loadingNotice('preview-loading', 'Fetching the source…') : nothing}
      ${panel.preview ? previewTable(state, panel.preview) : nothing}
      <h4>Runs</h4>
      ${panel.runs ? runLog(state, panel.runs) : loadingNotice('runs-loading', 'Loading the runs…')}
    </section>
  </td></tr>`;
};

const content = (state: State) => {
  const admin = isAdmin(state.shell);
  const { items } = state;
  return html`<section id="integrations" aria-labelledby="integrations-title" aria-busy=${state.loading ? 'true' : nothing}>
    <div class="section-head">
      <h2 id="integrations-title" tabindex="-1">Integrations of your organization</h2>
      ${
        admin && !state.featureOff
          ? html`<button type="button" id="create-open" class="primary" @click=${() => openForm(null)}>Create integration</button>`
          : nothing
      }
    </div>
    ${message(
      'feature-notice',
      'notice warning',
      state.featureOff
        ? `Your organization’s plan does not include pull integrations (${FEATURE}). Upgrade the plan to let the service fetch KPI values from your systems.`
        : null,
    )}
    ${message(
      'role-notice',
      'notice',
      admin || state.featureOff
        ? null
        : `You are signed in with the ${state.shell.claims?.role ?? 'unknown'} role. Only administrators (ADMIN) can create, change, preview or run integrations; you can read them and their runs.`,
    )}
    ${state.loadError ? loadFailed('list-error', 'The integrations', state.loadError, () => void loadAll()) : nothing}
    ${
      items
        ? items.length === 0
          ? html`<p id="empty" class="empty">No pull integrations yet.${admin ? ' Create one to fetch KPI values from an HTTP API on a schedule.' : ''}</p>`
          : html`<table id="integrations-table">
              <caption class="visually-hidden">Pull integrations of your organization</caption>
              <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Schedule</th><th scope="col">Last run</th><th scope="col">Next run</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody id="integrations-body">${repeat(
                items,
                (i) => i.id,
                (i) => row(state, i, admin),
              )}</tbody>
            </table>`
        : state.loading
          ? loadingNotice('integrations-loading', 'Loading the integrations…')
          : nothing
    }
  </section>`;
};

const fieldError = (dialog: FormDialog, path: string) =>
  dialog.fieldErrors
    .filter(
      (error) =>
        error.path === path || error.path.startsWith(`${path}.`) || error.path.startsWith(`${path}[`),
    )
    .map((error) => error.message)
    .join(' ') || null;

const secretField = (dialog: FormDialog, id: string, label: string, field: string) => {
  const stored = dialog.editing !== null && dialog.editing.auth.type === dialog.authType;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <p id="${id}-hint" class="hint">${stored ? 'Stored and never shown. Leave empty to keep it.' : 'Write-only: it is never shown again.'}</p>
    <input id=${id} name=${field} type="password" autocomplete="new-password" aria-describedby="${id}-hint" />
  </div>`;
};

const authFields = (dialog: FormDialog) => {
  const auth = dialog.editing?.auth;
  switch (dialog.authType) {
    case 'bearer':
      return secretField(dialog, 'auth-token', 'Token', 'token');
    case 'header':
      return html`<div class="field"><label for="auth-name">Header name</label><input id="auth-name" name="authName" value=${auth?.type === 'header' ? auth.name : 'X-API-Key'} /></div>
        ${secretField(dialog, 'auth-value', 'Header value', 'value')}`;
    case 'basic':
      return html`<div class="field"><label for="auth-username">User name</label><input id="auth-username" name="username" autocomplete="off" value=${auth?.type === 'basic' ? auth.username : ''} /></div>
        ${secretField(dialog, 'auth-password', 'Password', 'password')}`;
    case 'oauth2_client_credentials':
      return html`<div class="field"><label for="auth-token-url">Token URL</label><input id="auth-token-url" name="tokenUrl" type="url" value=${auth?.type === 'oauth2_client_credentials' ? auth.tokenUrl : ''} /></div>
        <div class="field"><label for="auth-client-id">Client id</label><input id="auth-client-id" name="clientId" autocomplete="off" value=${auth?.type === 'oauth2_client_credentials' ? auth.clientId : ''} /></div>
        ${secretField(dialog, 'auth-client-secret', 'Client secret', 'clientSecret')}
        <div class="field"><label for="auth-scope">Scope <span class="optional">(optional)</span></label><input id="auth-scope" name="scope" value=${auth?.type === 'oauth2_client_credentials' ? (auth.scope ?? '') : ''} /></div>`;
    default:
      return nothing;
  }
};

const bindingRow = (state: State, dialog: FormDialog, key: number, index: number) => {
  const binding = dialog.editing?.measurements[key];
  const error = fieldError(dialog, `measurements[${index}]`);
  return html`<fieldset class="binding" data-binding=${key}>
    <legend>Binding ${index + 1}</legend>
    <div class="field"><label for="kpi-${key}">KPI</label>
      <select id="kpi-${key}" name="kpi-${key}">${state.kpis.map(
        (kpi) => html`<option value=${kpi.id} ?selected=${binding?.kpiId === kpi.id}>${kpi.name}</option>`,
      )}</select></div>
    <div class="field"><label for="actual-${key}">Actual (JMESPath)</label><input id="actual-${key}" name="actual-${key}" spellcheck="false" value=${binding?.actual ?? ''} placeholder="data.value" /></div>
    <div class="field"><label for="target-${key}">Target <span class="optional">(optional)</span></label><input id="target-${key}" name="target-${key}" spellcheck="false" value=${binding?.target ?? ''} /></div>
    <div class="field"><label for="forecast-${key}">Forecast <span class="optional">(optional)</span></label><input id="forecast-${key}" name="forecast-${key}" spellcheck="false" value=${binding?.forecast ?? ''} /></div>
    ${message(`binding-error-${key}`, 'error', error)}
    ${dialog.rows.length > 1 ? html`<div><button type="button" aria-label="Remove binding ${index + 1}" @click=${() => removeRow(key)}>Remove</button></div>` : nothing}
  </fieldset>`;
};

const formDialog = (state: State, dialog: FormDialog | null) =>
  html`<dialog id="integration-dialog" aria-labelledby="form-title" ${modal(dialog !== null)} @close=${() => closed('form')}>${
    dialog
      ? html`<form id="integration-form" class="stack" novalidate @submit=${submitForm}>
          <h2 id="form-title">${dialog.editing ? `Change “${dialog.editing.name}”` : 'Create pull integration'}</h2>
          <div class="field"><label for="pull-name">Name</label>
            <input id="pull-name" name="name" required maxlength="100" autocomplete="off" value=${dialog.editing?.name ?? ''} aria-describedby="pull-name-error" />
            ${message('pull-name-error', 'error', fieldError(dialog, 'name'))}</div>
          <div class="field"><label for="pull-url">URL (GET)</label>
            <p id="pull-url-hint" class="hint">An HTTPS address that answers JSON.</p>
            <input id="pull-url" name="url" type="url" required value=${dialog.editing?.url ?? ''} aria-describedby="pull-url-hint pull-url-error" />
            ${message('pull-url-error', 'error', fieldError(dialog, 'url'))}</div>
          <div class="field"><label for="pull-auth">Authentication</label>
            <select id="pull-auth" name="authType" @change=${(event: Event) => patchForm({ authType: (event.target as HTMLSelectElement).value as AuthType })}>${(
              Object.keys(AUTH_LABELS) as AuthType[]
            ).map(
              (type) =>
                html`<option value=${type} ?selected=${dialog.authType === type}>${AUTH_LABELS[type]}</option>`,
            )}</select>
            ${message('pull-auth-error', 'error', fieldError(dialog, 'auth'))}</div>
          ${authFields(dialog)}
          <div class="inline-fields">
            <div class="field"><label for="pull-every">Schedule</label>
              <select id="pull-every" name="every" @change=${(event: Event) => patchForm({ every: (event.target as HTMLSelectElement).value as Every })}>${(
                Object.keys(EVERY_LABELS) as Every[]
              ).map(
                (every) =>
                  html`<option value=${every} ?selected=${dialog.every === every}>${EVERY_LABELS[every]}</option>`,
              )}</select></div>
            ${
              TIMED.includes(dialog.every)
                ? html`<div class="field"><label for="pull-at">At (UTC)</label><input id="pull-at" name="at" type="time" value=${dialog.editing?.schedule.at ?? '06:00'} /></div>`
                : nothing
            }
            <div class="field"><label for="pull-period">A value stands for the</label>
              <select id="pull-period" name="period">${(['day', 'week', 'month', 'quarter'] as const).map(
                (period) =>
                  html`<option value=${period} ?selected=${(dialog.editing?.period ?? 'month') === period}>current ${period}</option>`,
              )}</select></div>
          </div>
          <div class="field"><label for="pull-headers">Headers <span class="optional">(optional, not secret)</span></label>
            <p id="pull-headers-hint" class="hint">One per line, <code>Name: value</code>. Credentials go in Authentication.</p>
            <textarea id="pull-headers" name="headers" rows="2" spellcheck="false" aria-describedby="pull-headers-hint pull-headers-error" .value=${Object.entries(
              dialog.editing?.headers ?? {},
            )
              .map(([name, value]) => `${name}: ${value}`)
              .join('\n')}></textarea>
            ${message('pull-headers-error', 'error', fieldError(dialog, 'headers'))}</div>
          <div class="bindings">${repeat(
            dialog.rows,
            (key) => key,
            (key, index) => bindingRow(state, dialog, key, index),
          )}</div>
          <div><button type="button" id="add-binding" @click=${addRow}>Add binding</button></div>
          ${message('form-error', 'error', dialog.error, 'alert')}
          <div class="actions">
            <button type="button" id="form-cancel" @click=${() => closed('form')}>Cancel</button>
            <button type="submit" id="form-submit" class="primary" ?disabled=${dialog.busy}>${dialog.editing ? 'Save' : 'Create integration'}</button>
          </div>
        </form>`
      : nothing
  }</dialog>`;

const deleteDialog = (dialog: Extract<Dialog, { kind: 'delete' }> | null) =>
  html`<dialog id="delete-dialog" aria-labelledby="delete-title" ${modal(dialog !== null)} @close=${() => closed('delete')}>${
    dialog
      ? html`<div class="stack">
          <h2 id="delete-title">Delete “${dialog.integration.name}”?</h2>
          <p>It is not run again. The measurements it stored stay.</p>
          ${message('delete-error', 'error', dialog.error, 'alert')}
          <div class="actions">
            <button type="button" id="delete-cancel" @click=${() => closed('delete')}>Cancel</button>
            <button type="button" id="delete-confirm" class="danger" ?disabled=${dialog.busy} @click=${confirmDelete}>Delete</button>
          </div>
        </div>`
      : nothing
  }</dialog>`;

const dialogs = (state: State) => {
  const dialog = state.dialog;
  return html`${formDialog(state, dialog?.kind === 'form' ? dialog : null)}${deleteDialog(dialog?.kind === 'delete' ? dialog : null)}`;
};

const page = createPage<Pulls>({
  name: 'integrations',
  title: 'Pull integrations',
  lead: html`A pull integration lets the service fetch KPI values from one of your systems on a schedule: it
    GETs a URL, reads each value out of the JSON answer with a JMESPath expression, and stores it as a push would.`,
  initial: {
    items: null,
    kpis: [],
    loading: false,
    loadError: null,
    featureOff: false,
    panel: null,
    dialog: null,
  },
  content,
  dialogs,
  signedIn: async (interactive) => {
    await loadAll();
    const linked = location.hash.startsWith('#integration-')
      ? decodeURIComponent(location.hash.slice(13))
      : null;
    const integration = linked ? page.state.items?.find((item) => item.id === linked) : undefined;
    if (integration) {
      await togglePanel(integration);
      document.getElementById(`integration-${integration.id}`)?.scrollIntoView({ block: 'center' });
    } else if (interactive) focusById('integrations-title');
  },
});

// ---------------------------------------------------------------------------------------------------
// Loading

let loads = 0;

const loadKpis = async (): Promise<KpiOption[]> => {
  try {
    const kpis = await api<KpiPage>('GET', '/kpis?limit=1000');
    return kpis.items.map((kpi) => ({ id: kpi.id, name: kpi.name, type: kpi.type }));
  } catch {
    return [];
  }
};

const loadAll = async () => {
  const load = ++loads;
  page.update({ loading: true, loadError: null });
  try {
    const [list, kpis] = await Promise.all([
      api<PullIntegrationPage>('GET', '/integrations/pull?limit=1000'),
      page.state.kpis.length > 0 ? page.state.kpis : loadKpis(),
    ]);
    if (load !== loads || !page.state.shell.claims) return;
    page.update({ items: list.items, kpis, loading: false, featureOff: false });
  } catch (error) {
    if (error instanceof SessionEnded || load !== loads || !page.state.shell.claims) return;
    if (
      error instanceof ApiError &&
      error.status === 403 &&
      error.problem.type?.endsWith('/feature-not-enabled')
    ) {
      page.update({ loading: false, featureOff: true, items: null });
      return;
    }
    page.update({ loading: false, loadError: describe(error) });
  }
};

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

const togglePanel = async (integration: Integration) => {
  if (page.state.panel?.id === integration.id) {
    page.update({ panel: null });
    return;
  }
  page.update({
    panel: { id: integration.id, previewing: false, preview: null, running: false, runs: null, error: null },
  });
  await loadRuns(integration.id);
};

const previewNow = async (integration: Integration) => {
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

const runNowClicked = async (integration: Integration) => {
  patchPanel(integration.id, { running: true, error: null });
  try {
    const run = await api<PullRunResponse>(
      'POST',
      `/integrations/pull/${encodeURIComponent(integration.id)}/run`,
    );
    patchPanel(integration.id, { running: false });
    page.announce(
      `“${integration.name}” ran: ${run.outcome}, ${run.measurementsStored} measurement(s) stored.`,
    );
    await Promise.all([loadAll(), loadRuns(integration.id)]);
  } catch (error) {
    if (!(error instanceof SessionEnded))
      patchPanel(integration.id, { running: false, error: describe(error) });
  }
};

// ---------------------------------------------------------------------------------------------------
// The form

let nextRow = 0;

const closed = (kind: Dialog['kind']) => {
  if (page.state.dialog?.kind === kind) page.update({ dialog: null });
};

const patchForm = (change: Partial<FormDialog>) => {
  const dialog = page.state.dialog;
  if (dialog?.kind === 'form') page.update({ dialog: { ...dialog, ...change } });
};

const openForm = (editing: Integration | null) => {
  page.clearMessages();
  const rows = editing ? editing.measurements.map((_, i) => i) : [0];
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
    },
  });
  focusById('pull-name');
};

const addRow = () => {
  const dialog = page.state.dialog;
  if (dialog?.kind !== 'form') return;
  patchForm({ rows: [...dialog.rows, nextRow++] });
  focusById(`kpi-${nextRow - 1}`);
};

const removeRow = (key: number) => {
  const dialog = page.state.dialog;
  if (dialog?.kind === 'form') patchForm({ rows: dialog.rows.filter((row) => row !== key) });
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
    measurements: dialog.rows.map((key) => {
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

const submitForm = async (event: SubmitEvent) => {
  event.preventDefault();
  const dialog = page.state.dialog;
  if (dialog?.kind !== 'form') return;
  const body = bodyOf(new FormData(event.currentTarget as HTMLFormElement), dialog, page.state.kpis);
  patchForm({ busy: true, error: null, fieldErrors: [] });
  try {
    const saved = dialog.editing
      ? await api<Integration>('PATCH', `/integrations/pull/${encodeURIComponent(dialog.editing.id)}`, body)
      : await api<Integration>('POST', '/integrations/pull', body);
    closed('form');
    await loadAll();
    page.announce(
      dialog.editing
        ? `Integration “${saved.name}” saved.`
        : `Integration “${saved.name}” created: it runs at the next pass of the scheduler.`,
    );
    focusById('integrations-title');
  } catch (error) {
    if (error instanceof SessionEnded) return;
    const fieldErrors = error instanceof ApiError ? (error.problem.errors ?? []) : [];
    patchForm({ busy: false, error: describe(error), fieldErrors });
  }
};

const openDelete = (integration: Integration) => {
  page.clearMessages();
  page.update({ dialog: { kind: 'delete', integration, busy: false, error: null } });
  focusById('delete-cancel');
};

const confirmDelete = async () => {
  const dialog = page.state.dialog;
  if (dialog?.kind !== 'delete') return;
  page.update({ dialog: { ...dialog, busy: true, error: null } });
  try {
    await api<void>('DELETE', `/integrations/pull/${encodeURIComponent(dialog.integration.id)}`);
  } catch (error) {
    if (error instanceof SessionEnded) return;
    if (!(error instanceof ApiError && error.status === 404)) {
      page.update({ dialog: { ...dialog, busy: false, error: describe(error) } });
      return;
    }
  }
  closed('delete');
  if (page.state.panel?.id === dialog.integration.id) page.update({ panel: null });
  await loadAll();
  page.announce(`Integration “${dialog.integration.name}” deleted.`);
  focusById('integrations-title');
};

page.start();
