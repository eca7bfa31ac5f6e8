/**
 * The integration page's content: the list with each integration's status, schedule, last and next
 * run, and an integration's panel under its row (its preview and its run log).
 */
import { html, nothing } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';
import { formatPeriod } from '../kpis/format';
import type { PullPreviewResponse, PullRunResponse } from '../shared/api-types';
import { isAdmin } from '../shared/shell';
import { loadFailed, loadingNotice, message, timeCell } from '../shared/view';
import {
  loadIntegrations,
  loadMoreIntegrations,
  openDelete,
  openForm,
  previewNow,
  runNowClicked,
  togglePanel,
} from './actions';
import { AUTH_LABELS, EVERY_LABELS, FEATURE, type Integration, type Panel, type State, TIMED } from './state';

const scheduleText = ({ every, at }: Integration['schedule']) =>
  `${EVERY_LABELS[every]}${at ? ` at ${at} UTC` : TIMED.includes(every) ? ' at 00:00 UTC' : ''}`;

const kpiName = (state: State, id: string) => state.kpis.find((kpi) => kpi.id === id)?.name ?? id;

const numberText = (value: number | null) => (value === null ? '—' : new Intl.NumberFormat().format(value));

const lastRunText = (integration: Integration) => {
  const run = integration.lastRun;
  if (!run) return 'Not run yet';
  return html`${timeCell(run.startedAt, '—')} <span class="badge ${run.outcome}">${run.outcome}</span>${
    run.errorClass
      ? html` <span class="note">${run.errorClass}${run.httpStatus ? ` (HTTP ${run.httpStatus})` : ''}</span>`
      : nothing
  }`;
};

/**
 * The status as the list shows it: an active integration whose last run failed is `failing` (the
 * service marks it so only after several failures in a row), never a green `active`.
 */
const shownStatus = (integration: Integration) =>
  integration.status === 'active' && integration.lastRun?.outcome === 'failed'
    ? 'failing'
    : integration.status;

/**
 * The next run; when it is due (in the past), what runs it: the scheduler's next pass on AWS, and
 * locally only `npm run pull:run` or Run now, since no scheduler runs on this machine.
 */
const nextRunText = (integration: Integration) =>
  integration.nextRunAt !== null && Date.parse(integration.nextRunAt) <= Date.now()
    ? html`${timeCell(integration.nextRunAt, 'Not scheduled')} <span class="note due">due: the scheduler’s next pass runs it (locally nothing does until <code>npm run pull:run</code> or Run now)</span>`
    : timeCell(integration.nextRunAt, 'Not scheduled');

const row = (state: State, integration: Integration, admin: boolean) => {
  const open = state.panel?.id === integration.id;
  const status = shownStatus(integration);
  return html`<tr id="integration-${integration.id}" data-integration-id=${integration.id} data-status=${integration.status}>
      <th scope="row" data-label="Name">${integration.name}</th>
      <td data-label="Status"><span class="badge ${status}">${status}</span></td>
      <td data-label="Schedule">${scheduleText(integration.schedule)}</td>
      <td data-label="Last run">${lastRunText(integration)}</td>
      <td data-label="Next run">${nextRunText(integration)}</td>
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
                <td data-label="Period">${binding.periodStart && binding.periodEnd ? formatPeriod(binding.periodStart, binding.periodEnd) : '—'}</td>
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
            <td data-label="Outcome"><span class="badge ${run.outcome}">${run.outcome}</span></td>
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

export const content = (state: State) => {
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
    ${state.loadError ? loadFailed('list-error', 'The integrations', state.loadError, () => void loadIntegrations()) : nothing}
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
            </table>
            ${
              state.nextCursor
                ? html`<p class="more"><button type="button" id="integrations-more" ?disabled=${state.loading} @click=${() => void loadMoreIntegrations()}>Show more integrations</button> ${items.length} shown; your organization has more.</p>`
                : nothing
            }`
        : state.loading
          ? loadingNotice('integrations-loading', 'Loading the integrations…')
          : nothing
    }
  </section>`;
};
