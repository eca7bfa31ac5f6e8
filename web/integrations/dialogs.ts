/**
 * The integration page's dialogs: the form that creates and changes an integration (its secrets
 * write-only) and the confirmation of a delete.
 */
import { html, nothing } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';
import type { PullPreviewResponse } from '../shared/api-types';
import { modal } from '../shared/dialog';
import { message } from '../shared/view';
import {
  addRow,
  confirmDelete,
  pathFieldFocused,
  previewForm,
  removeRow,
  submitForm,
  usePath,
} from './actions';
import { pathOf, type Step } from './answer';
import { bindingErrors, errorsAt } from './field-errors';
import {
  AUTH_LABELS,
  type AuthType,
  type DialogOf,
  EVERY_LABELS,
  type Every,
  type FormDialog,
  openDialog,
  PATH_FIELD_LABELS,
  type PathField,
  type State,
  TIMED,
} from './state';

const fieldError = (dialog: FormDialog, path: string) => errorsAt(dialog.fieldErrors, path);

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

/** A binding's path input with its own error line, described by it; focusing it makes it the path target. */
const bindingField = (
  key: number,
  field: PathField,
  label: unknown,
  value: string,
  error: string | null,
  placeholder = '',
) =>
  html`<div class="field"><label for="${field}-${key}">${label}</label><input id="${field}-${key}" name="${field}-${key}" spellcheck="false" value=${value} placeholder=${placeholder || nothing} aria-invalid=${error ? 'true' : nothing} aria-describedby="${field}-${key}-error" @focus=${() => pathFieldFocused(key, field)} />
    ${message(`${field}-${key}-error`, 'error', error)}</div>`;

const bindingRow = (state: State, dialog: FormDialog, key: number, index: number) => {
  const binding = dialog.editing?.bindings[key];
  const errors = bindingErrors(dialog.fieldErrors, 'bindings', index);
  return html`<fieldset class="binding" data-binding=${key}>
    <legend>Binding ${index + 1}</legend>
    <div class="field"><label for="kpi-${key}">KPI</label>
      <select id="kpi-${key}" name="kpi-${key}" aria-describedby="kpi-${key}-error">${state.kpis.map(
        (kpi) => html`<option value=${kpi.id} ?selected=${binding?.kpiId === kpi.id}>${kpi.name}</option>`,
      )}</select>
      ${message(`kpi-${key}-error`, 'error', errors.kpiId)}</div>
    ${bindingField(key, 'actual', 'Actual (JMESPath)', binding?.actual ?? '', errors.actual, 'data.value')}
    ${bindingField(key, 'target', html`Target <span class="optional">(optional)</span>`, binding?.target ?? '', errors.target)}
    ${bindingField(key, 'forecast', html`Forecast <span class="optional">(optional)</span>`, binding?.forecast ?? '', errors.forecast)}
    ${message(`binding-error-${key}`, 'error', errors.rest)}
    ${bindingPreview(dialog.preview, key, index)}
    ${dialog.rows.length > 1 ? html`<div><button type="button" aria-label="Remove binding ${index + 1}" @click=${() => removeRow(key)}>Remove</button></div>` : nothing}
  </fieldset>`;
};

const numberText = (value: number | null) => (value === null ? '—' : new Intl.NumberFormat().format(value));

/** What the preview extracted for this binding, beside its fields. */
const bindingPreview = (preview: PullPreviewResponse | null, key: number, index: number) => {
  const values = preview?.bindings[index];
  if (!values || values.problem) return nothing;
  return html`<p id="binding-preview-${key}" class="hint extracted">Preview: actual ${numberText(values.actual)}${
    values.target === null ? '' : `, target ${numberText(values.target)}`
  }${values.forecast === null ? '' : `, forecast ${numberText(values.forecast)}`}</p>`;
};

/** An answer's value and what it holds; every scalar a button that fills in its path. */
const answerNode = (value: unknown, steps: Step[]): unknown => {
  if (Array.isArray(value))
    return html`[<ul>${value.map((item, i) => html`<li>${answerNode(item, [...steps, i])}</li>`)}</ul>]`;
  if (value !== null && typeof value === 'object')
    return html`{<ul>${Object.entries(value).map(
      ([name, member]) =>
        html`<li><span class="json-key">${JSON.stringify(name)}</span>: ${answerNode(member, [...steps, name])}</li>`,
    )}</ul>}`;
  const path = pathOf(steps);
  return path === ''
    ? html`<code>${JSON.stringify(value)}</code>`
    : html`<button type="button" class="json-value" data-path=${path} title=${path} @click=${() => usePath(path)}>${JSON.stringify(value)}</button>`;
};

const answerSection = (dialog: FormDialog) => {
  const { preview } = dialog;
  if (!preview) return nothing;
  const row = dialog.rows.includes(dialog.pathTarget.key)
    ? dialog.pathTarget
    : { key: dialog.rows[0] ?? 0, field: 'actual' as const };
  return html`<section id="answer" aria-labelledby="answer-title">
    <h3 id="answer-title">The source’s answer</h3>
    ${
      preview.error
        ? html`<p id="answer-summary" class="problem">The fetch failed: ${preview.error} (${preview.errorClass})</p>`
        : html`<p id="answer-summary">HTTP ${preview.httpStatus} in ${preview.durationMs} ms; nothing stored. ${preview.measurements.length} of ${preview.bindings.length} binding(s) give a value. Click a value to put its path into binding ${dialog.rows.indexOf(row.key) + 1}, ${PATH_FIELD_LABELS[row.field]} (focus another path field to change where it goes).${
            preview.answerTruncated
              ? ' The answer is cut: it shows the first 50 items of each array and 200 characters of each text.'
              : ''
          }</p>
          <div id="answer-json" class="json-tree">${answerNode(preview.answer, [])}</div>`
    }
  </section>`;
};

const formDialog = (state: State, dialog: FormDialog | null) =>
  html`<dialog id="integration-dialog" aria-labelledby="form-title" ${modal(dialog !== null)} @close=${() => openDialog.closed('form')}>${
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
            <select id="pull-auth" name="authType" @change=${(event: Event) => openDialog.patch('form', { authType: (event.target as HTMLSelectElement).value as AuthType })}>${(
              Object.keys(AUTH_LABELS) as AuthType[]
            ).map(
              (type) =>
                html`<option value=${type} ?selected=${dialog.authType === type}>${AUTH_LABELS[type]}</option>`,
            )}</select>
            ${message('pull-auth-error', 'error', fieldError(dialog, 'auth'))}</div>
          ${authFields(dialog)}
          <div class="inline-fields">
            <div class="field"><label for="pull-every">Schedule</label>
              <select id="pull-every" name="every" @change=${(event: Event) => openDialog.patch('form', { every: (event.target as HTMLSelectElement).value as Every })}>${(
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
          ${answerSection(dialog)}
          ${message('form-error', 'error', dialog.error, 'alert')}
          <div class="actions">
            <button type="button" id="form-cancel" @click=${() => openDialog.closed('form')}>Cancel</button>
            <button type="button" id="form-preview" ?disabled=${dialog.previewing || dialog.busy} @click=${() => void previewForm()}>${dialog.previewing ? 'Fetching…' : 'Preview'}</button>
            <button type="submit" id="form-submit" class="primary" ?disabled=${dialog.busy}>${dialog.editing ? 'Save' : 'Create integration'}</button>
          </div>
        </form>`
      : nothing
  }</dialog>`;

const deleteDialog = (dialog: DialogOf<'delete'> | null) =>
  html`<dialog id="delete-dialog" aria-labelledby="delete-title" ${modal(dialog !== null)} @close=${() => openDialog.closed('delete')}>${
    dialog
      ? html`<div class="stack">
          <h2 id="delete-title">Delete “${dialog.integration.name}”?</h2>
          <p>It is not run again. The measurements it stored stay.</p>
          ${message('delete-error', 'error', dialog.error, 'alert')}
          <div class="actions">
            <button type="button" id="delete-cancel" @click=${() => openDialog.closed('delete')}>Cancel</button>
            <button type="button" id="delete-confirm" class="danger" ?disabled=${dialog.busy} @click=${confirmDelete}>Delete</button>
          </div>
        </div>`
      : nothing
  }</dialog>`;

export const dialogs = (state: State) =>
  html`${formDialog(state, openDialog.of(state, 'form'))}${deleteDialog(openDialog.of(state, 'delete'))}`;
