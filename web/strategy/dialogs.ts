/**
 * The KPI page's dialogs: the KPI form (new and edit: every field, direction and tolerance included),
 * the Targets dialog (a row per period, filled by a paste from a spreadsheet), the archive
 * confirmation, and the cycle form and delete confirmation. A problem the API names a field of is
 * shown under that field; the rest under the form.
 */
import { html, nothing } from 'lit-html';
import { keyed } from 'lit-html/directives/keyed.js';
import { KPI_PERIODS } from '../../lib/domain/calendar';
import { formatPeriod } from '../kpis/format';
import type { CycleStatus } from '../shared/api-types';
import { modal } from '../shared/dialog';
import { ownerName } from '../shared/groups';
import { KPI_TYPES, TYPE_LABELS } from '../shared/kpi-types';
import { message } from '../shared/view';
import {
  addTargetRow,
  confirmArchive,
  confirmDeleteCycle,
  pasteTargets,
  submitCycle,
  submitKpi,
  submitTargets,
} from './actions';
import {
  CADENCE_LABELS,
  CYCLE_STATUS_LABELS,
  DIRECTION_LABELS,
  type Dialog,
  type DialogOf,
  type FieldError,
  openDialog,
  PERIOD_LABELS,
  type State,
} from './state';

const frame = <K extends Dialog['kind']>(
  kind: K,
  dialog: DialogOf<K> | null,
  content: (open: DialogOf<K>) => unknown,
) =>
  html`<dialog id="${kind}-dialog" aria-labelledby="${kind}-title" ${modal(dialog !== null)} @close=${() => openDialog.closed(kind)}>${dialog ? content(dialog) : nothing}</dialog>`;

const errorOf = (errors: FieldError[], path: string) =>
  errors
    .filter((error) => error.path === path || error.path.startsWith(`${path}.`))
    .map((error) => error.message)
    .join(' ') || null;

/** A field with its label, optional hint and the API's problem for it, linked by ids. */
const field = (
  errors: FieldError[],
  {
    id,
    name,
    label,
    hint,
    optional,
  }: { id: string; name: string; label: string; hint?: string; optional?: boolean },
  control: (describedBy: string, invalid: boolean) => unknown,
) => {
  const error = errorOf(errors, name);
  const describedBy = [hint ? `${id}-hint` : '', `${id}-error`].filter(Boolean).join(' ');
  return html`<div class="field">
    <label for=${id}>${label}${optional ? html` <span class="optional">(optional)</span>` : nothing}</label>
    ${hint ? html`<p id="${id}-hint" class="hint">${hint}</p>` : nothing}
    ${control(describedBy, error !== null)}
    ${message(`${id}-error`, 'error', error)}
  </div>`;
};

const options = <V extends string>(labels: Record<V, string>, selected: string) =>
  (Object.keys(labels) as V[]).map(
    (value) => html`<option value=${value} ?selected=${value === selected}>${labels[value]}</option>`,
  );

/**
 * The owners the form offers, as [id, label]: the tenant's active users when they could be read, else
 * the signed-in user; and the KPI's own owner when it is no longer among them (deactivated).
 */
const ownerOptions = (state: State, current: string | undefined): [string, string][] => {
  const me = state.shell.claims;
  const mine = (id: string, label: string) => (id === me?.sub ? `You (${label})` : label);
  const offered: [string, string][] = state.owners
    ? state.owners.map((o) => [o.id, mine(o.id, o.name ? `${o.name}, ${o.email}` : o.email)])
    : me?.sub
      ? [[me.sub, mine(me.sub, me.email ?? me.sub)]]
      : [];
  return current && !offered.some(([id]) => id === current)
    ? [...offered, [current, ownerName(me?.sub, current)]]
    : offered;
};

const kpiDialog = (state: State, dialog: DialogOf<'kpi'> | null) =>
  frame('kpi', dialog, (dialog) => {
    const kpi = dialog.editing;
    const errors = dialog.fieldErrors;
    const input =
      (id: string, name: string, value: string, extra: { type?: string; required?: boolean } = {}) =>
      (describedBy: string, invalid: boolean) =>
        html`<input id=${id} name=${name} type=${extra.type ?? 'text'} ?required=${extra.required ?? false} autocomplete="off" .value=${value} aria-describedby=${describedBy} aria-invalid=${invalid ? 'true' : nothing} />`;
    const select = (id: string, name: string, content: unknown) => (describedBy: string, invalid: boolean) =>
      html`<select id=${id} name=${name} aria-describedby=${describedBy} aria-invalid=${invalid ? 'true' : nothing}>${content}</select>`;
    return html`<form id="kpi-form" class="stack" novalidate @submit=${submitKpi}>
      <h2 id="kpi-title">${kpi ? `Edit “${kpi.name}”` : 'New KPI'}</h2>
      ${field(errors, { id: 'kpi-name', name: 'name', label: 'Name', hint: '1 to 200 characters.' }, input('kpi-name', 'name', kpi?.name ?? '', { required: true }))}
      <div class="inline-fields">
        ${field(
          errors,
          { id: 'kpi-type', name: 'type', label: 'Type' },
          select(
            'kpi-type',
            'type',
            KPI_TYPES.map(
              (type) =>
                html`<option value=${type} ?selected=${type === (kpi?.type ?? 'KPI_DEFINITION')}>${TYPE_LABELS[type]}</option>`,
            ),
          ),
        )}
        ${field(errors, { id: 'kpi-unit', name: 'unit', label: 'Unit', optional: true }, input('kpi-unit', 'unit', kpi?.unit ?? ''))}
      </div>
      ${field(errors, { id: 'kpi-description', name: 'description', label: 'Description', optional: true }, (describedBy, invalid) => html`<textarea id="kpi-description" name="description" rows="2" .value=${kpi?.description ?? ''} aria-describedby=${describedBy} aria-invalid=${invalid ? 'true' : nothing}></textarea>`)}
      <div class="inline-fields">
        ${field(
          errors,
          { id: 'kpi-period', name: 'period', label: 'Period', hint: 'What one measurement stands for.' },
          select(
            'kpi-period',
            'period',
            KPI_PERIODS.map(
              (period) =>
                html`<option value=${period} ?selected=${period === (kpi?.period ?? 'month')}>${PERIOD_LABELS[period]}</option>`,
            ),
          ),
        )}
        ${field(errors, { id: 'kpi-direction', name: 'direction', label: 'Direction' }, select('kpi-direction', 'direction', options(DIRECTION_LABELS, kpi?.direction ?? 'higher_is_better')))}
        ${field(errors, { id: 'kpi-tolerance', name: 'tolerance', label: 'Tolerance (%)', hint: 'A miss within this share of the target is at risk, beyond it off track.' }, input('kpi-tolerance', 'tolerance', String(Math.round((kpi?.tolerance ?? 0.1) * 1000) / 10), { type: 'number' }))}
      </div>
      <div class="inline-fields">
        ${field(errors, { id: 'kpi-cadence', name: 'cadence', label: 'Expected cadence' }, select('kpi-cadence', 'cadence', options(CADENCE_LABELS, kpi?.cadence ?? 'none')))}
        ${field(errors, { id: 'kpi-grace', name: 'graceHours', label: 'Grace (hours)', hint: '0 to 720.' }, input('kpi-grace', 'graceHours', String(kpi?.graceHours ?? 1), { type: 'number' }))}
      </div>
      <div class="inline-fields">
        ${field(errors, { id: 'kpi-cycle', name: 'cycleId', label: 'Strategic cycle', optional: true }, select('kpi-cycle', 'cycleId', html`<option value="">No cycle</option>${(state.cycles ?? []).map((cycle) => html`<option value=${cycle.id} ?selected=${cycle.id === kpi?.cycleId}>${cycle.name}</option>`)}`))}
        ${field(errors, { id: 'kpi-owner', name: 'ownerId', label: 'Owner', optional: true }, select('kpi-owner', 'ownerId', html`<option value="">No owner</option>${ownerOptions(state, kpi?.ownerId).map(([id, label]) => html`<option value=${id} ?selected=${id === kpi?.ownerId}>${label}</option>`)}`))}
      </div>
      ${message('kpi-form-error', 'error', dialog.error, 'alert')}
      <div class="actions">
        <button type="button" id="kpi-cancel" @click=${() => openDialog.closed('kpi')}>Cancel</button>
        <button type="submit" id="kpi-submit" class="primary" ?disabled=${dialog.busy}>${kpi ? 'Save' : 'Create KPI'}</button>
      </div>
    </form>`;
  });

const targetsDialog = (dialog: DialogOf<'targets'> | null) =>
  frame('targets', dialog, (dialog) => {
    const unit = dialog.kpi.unit;
    return html`<form id="targets-form" class="stack" novalidate @submit=${submitTargets}>
      <h2 id="targets-title">Targets of “${dialog.kpi.name}”</h2>
      <div class="field">
        <label for="targets-paste">Paste from a spreadsheet</label>
        <p id="targets-paste-hint" class="hint">Two columns, period and target, e.g. <code>2026-11-30</code>, <code>2026-11</code> or <code>2026-Q4</code> and a number. Each period is read as the ${dialog.kpi.period} that holds it.</p>
        <textarea id="targets-paste" rows="2" spellcheck="false" aria-describedby="targets-paste-hint targets-paste-problems" @paste=${pasteTargets}></textarea>
        ${message('targets-paste-problems', 'error', dialog.pasteProblems.join(' ') || null)}
      </div>
      <table id="targets-table">
        <caption class="visually-hidden">A target per period</caption>
        <thead><tr><th scope="col">Period</th><th scope="col">Target${unit ? ` (${unit})` : ''}</th></tr></thead>
        <tbody id="targets-body">${keyed(
          dialog.version,
          dialog.rows.map((row) => {
            const id = `target-${row.periodStart}`;
            const error = errorOf(dialog.fieldErrors, `row:${row.periodStart}`);
            return html`<tr data-period="${row.periodStart}/${row.periodEnd}">
              <th scope="row"><label for=${id}>${formatPeriod(row.periodStart, row.periodEnd)}</label></th>
              <td><input id=${id} name=${id} inputmode="decimal" autocomplete="off" .value=${row.value} aria-describedby="${id}-error" aria-invalid=${error ? 'true' : nothing} @paste=${pasteTargets} />${message(`${id}-error`, 'error', error)}</td>
            </tr>`;
          }),
        )}</tbody>
      </table>
      <div><button type="button" id="targets-add" @click=${(event: Event) => addTargetRow((event.currentTarget as HTMLElement).closest('form'))}>Add the next period</button></div>
      ${message('targets-error', 'error', dialog.error, 'alert')}
      <div class="actions">
        <button type="button" id="targets-cancel" @click=${() => openDialog.closed('targets')}>Cancel</button>
        <button type="submit" id="targets-submit" class="primary" ?disabled=${dialog.busy}>Save targets</button>
      </div>
    </form>`;
  });

const archiveDialog = (dialog: DialogOf<'archive'> | null) =>
  frame(
    'archive',
    dialog,
    (dialog) => html`<div class="stack">
      <h2 id="archive-title">Archive “${dialog.kpi.name}”?</h2>
      <p>It and its measurements stay readable, under “Show archived”. Pushes and pulls to it are refused until it is restored.</p>
      ${message('archive-error', 'error', dialog.error, 'alert')}
      <div class="actions">
        <button type="button" id="archive-cancel" @click=${() => openDialog.closed('archive')}>Cancel</button>
        <button type="button" id="archive-confirm" class="danger" ?disabled=${dialog.busy} @click=${confirmArchive}>Archive</button>
      </div>
    </div>`,
  );

const cycleDialog = (dialog: DialogOf<'cycle'> | null) =>
  frame('cycle', dialog, (dialog) => {
    const cycle = dialog.editing;
    const errors = dialog.fieldErrors;
    const input =
      (id: string, name: string, value: string, type = 'text') =>
      (describedBy: string, invalid: boolean) =>
        html`<input id=${id} name=${name} type=${type} autocomplete="off" .value=${value} aria-describedby=${describedBy} aria-invalid=${invalid ? 'true' : nothing} />`;
    return html`<form id="cycle-form" class="stack" novalidate @submit=${submitCycle}>
      <h2 id="cycle-title">${cycle ? `Edit “${cycle.name}”` : 'New cycle'}</h2>
      ${field(errors, { id: 'cycle-name', name: 'name', label: 'Name' }, input('cycle-name', 'name', cycle?.name ?? ''))}
      <div class="inline-fields">
        ${field(errors, { id: 'cycle-start', name: 'startDate', label: 'First day' }, input('cycle-start', 'startDate', cycle?.startDate ?? '', 'date'))}
        ${field(errors, { id: 'cycle-end', name: 'endDate', label: 'Last day' }, input('cycle-end', 'endDate', cycle?.endDate ?? '', 'date'))}
      </div>
      ${field(errors, { id: 'cycle-description', name: 'description', label: 'Description', optional: true }, (describedBy, invalid) => html`<textarea id="cycle-description" name="description" rows="2" .value=${cycle?.description ?? ''} aria-describedby=${describedBy} aria-invalid=${invalid ? 'true' : nothing}></textarea>`)}
      ${
        cycle
          ? field(
              errors,
              { id: 'cycle-status', name: 'status', label: 'Status' },
              (describedBy, invalid) =>
                html`<select id="cycle-status" name="status" aria-describedby=${describedBy} aria-invalid=${invalid ? 'true' : nothing}>${options<CycleStatus>(CYCLE_STATUS_LABELS, cycle.status ?? 'planned')}</select>`,
            )
          : nothing
      }
      ${message('cycle-form-error', 'error', dialog.error, 'alert')}
      <div class="actions">
        <button type="button" id="cycle-cancel" @click=${() => openDialog.closed('cycle')}>Cancel</button>
        <button type="submit" id="cycle-submit" class="primary" ?disabled=${dialog.busy}>${cycle ? 'Save' : 'Create cycle'}</button>
      </div>
    </form>`;
  });

const deleteCycleDialog = (dialog: DialogOf<'delete-cycle'> | null) =>
  frame(
    'delete-cycle',
    dialog,
    (dialog) => html`<div class="stack">
      <h2 id="delete-cycle-title">Delete “${dialog.cycle.name}”?</h2>
      <p>Only a cycle without KPIs can be deleted.</p>
      ${message('delete-cycle-error', 'error', dialog.error, 'alert')}
      <div class="actions">
        <button type="button" id="delete-cycle-cancel" @click=${() => openDialog.closed('delete-cycle')}>Cancel</button>
        <button type="button" id="delete-cycle-confirm" class="danger" ?disabled=${dialog.busy} @click=${confirmDeleteCycle}>Delete</button>
      </div>
    </div>`,
  );

export const dialogs = (state: State) =>
  html`${kpiDialog(state, openDialog.of(state, 'kpi'))}${targetsDialog(openDialog.of(state, 'targets'))}${archiveDialog(openDialog.of(state, 'archive'))}${cycleDialog(openDialog.of(state, 'cycle'))}${deleteCycleDialog(openDialog.of(state, 'delete-cycle'))}`;
