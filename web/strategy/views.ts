/**
 * The strategy page's content: each strategic cycle with its dates, status and description, its KPIs'
 * status counts (on track, at risk, off track, no data) and its KPIs, then the KPIs in no cycle. ADMIN
 * and EDITOR get New KPI and New cycle, and on each KPI Edit, Targets and Archive (Restore when
 * archived), on each cycle Edit and Delete; VIEWER reads.
 */
import { html, nothing } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';
import { formatPeriod } from '../kpis/format';
import { plural } from '../shared/format';
import { groupByCycle, ownerName } from '../shared/groups';
import { canEdit } from '../shared/shell';
import { loadFailed, loadingNotice, message } from '../shared/view';
import {
  load,
  openArchive,
  openCycleForm,
  openDeleteCycle,
  openKpiForm,
  openTargets,
  restore,
  showArchived,
} from './actions';
import {
  COUNT_LABELS,
  CYCLE_STATUS_LABELS,
  type Cycle,
  type KpiItem,
  PERIOD_LABELS,
  type State,
} from './state';

const counts = (cycle: Cycle) =>
  cycle.statusCounts
    ? html`<ul class="counts" aria-label="Status of its KPIs">${(
        Object.keys(COUNT_LABELS) as (keyof typeof COUNT_LABELS)[]
      ).map(
        (key) =>
          html`<li data-count=${key}><span class="count">${cycle.statusCounts?.[key] ?? 0}</span> ${COUNT_LABELS[key]}</li>`,
      )}</ul>`
    : nothing;

const kpiRow = (state: State, kpi: KpiItem, editable: boolean) =>
  html`<li class="kpi" id="kpi-${kpi.id}" tabindex="-1" data-kpi-id=${kpi.id} ?data-archived=${kpi.archivedAt !== undefined}>
    <a class="kpi-name" href="kpis?kpi=${encodeURIComponent(kpi.id)}">${kpi.name}</a>
    <span class="sub">${PERIOD_LABELS[kpi.period]}${kpi.ownerId ? ` · owner ${ownerName(state.shell.claims?.sub, kpi.ownerId)}` : ''} · id <code>${kpi.id}</code>${
      kpi.archivedAt ? html` · <span class="badge archived">Archived</span>` : nothing
    }</span>
    ${
      editable
        ? html`<span class="row-actions">${
            kpi.archivedAt
              ? html`<button type="button" aria-label="Restore ${kpi.name}" @click=${() => restore(kpi)}>Restore</button>`
              : html`<button type="button" aria-label="Edit ${kpi.name}" @click=${() => openKpiForm(kpi)}>Edit</button><button type="button" aria-label="Targets of ${kpi.name}" @click=${() => openTargets(kpi)}>Targets</button><button type="button" class="danger" aria-label="Archive ${kpi.name}" @click=${() => openArchive(kpi)}>Archive</button>`
          }</span>`
        : nothing
    }
  </li>`;

const kpiList = (state: State, kpis: KpiItem[], editable: boolean) =>
  kpis.length > 0
    ? html`<ul class="kpis">${repeat(
        kpis,
        (kpi) => kpi.id,
        (kpi) => kpiRow(state, kpi, editable),
      )}</ul>`
    : html`<p class="empty">No KPIs in this cycle yet.</p>`;

const cycleCard = (state: State, cycle: Cycle, kpis: KpiItem[], editable: boolean) =>
  html`<article class="cycle" id="cycle-${cycle.id}" tabindex="-1" aria-labelledby="cycle-${cycle.id}-name" data-cycle-id=${cycle.id}>
    <div class="section-head">
      <h3 id="cycle-${cycle.id}-name">${cycle.name}</h3>
      ${
        editable
          ? html`<span class="row-actions"><button type="button" aria-label="Edit ${cycle.name}" @click=${() => openCycleForm(cycle)}>Edit</button><button type="button" class="danger" aria-label="Delete ${cycle.name}" @click=${() => openDeleteCycle(cycle)}>Delete</button></span>`
          : nothing
      }
    </div>
    <p class="hint">${formatPeriod(cycle.startDate, cycle.endDate)}${
      cycle.status ? html` · <span class="badge">${CYCLE_STATUS_LABELS[cycle.status]}</span>` : nothing
    } · ${plural(kpis.length, 'KPI')}</p>
    ${cycle.description ? html`<p>${cycle.description}</p>` : nothing}
    ${counts(cycle)}
    ${kpiList(state, kpis, editable)}
  </article>`;

export const content = (state: State) => {
  const editable = canEdit(state.shell);
  const { cycles, kpis } = state;
  const groups = groupByCycle(kpis ?? [], cycles ?? []);
  const loose = groups.find((group) => group.cycle === null)?.items ?? [];
  return html`<section id="cycles" aria-labelledby="cycles-title" aria-busy=${state.loading ? 'true' : nothing}>
    <div class="section-head">
      <h2 id="cycles-title" tabindex="-1">Strategic cycles</h2>
      ${
        editable
          ? html`<span class="row-actions"><button type="button" id="cycle-new" @click=${() => openCycleForm(null)}>New cycle</button><button type="button" id="kpi-new" class="primary" @click=${() => openKpiForm(null)}>New KPI</button></span>`
          : nothing
      }
    </div>
    ${message(
      'role-notice',
      'notice',
      editable
        ? null
        : `You are signed in with the ${state.shell.claims?.role ?? 'unknown'} role. Only administrators and editors (ADMIN, EDITOR) can change KPIs, targets and cycles; you can read them.`,
    )}
    <div class="filter">
      <input id="archived-filter" type="checkbox" .checked=${state.archived} @change=${showArchived} />
      <label for="archived-filter">Show archived KPIs</label>
    </div>
    ${state.loadError ? loadFailed('load-error', 'The cycles and KPIs', state.loadError, () => void load()) : nothing}
    ${
      cycles === null || kpis === null
        ? state.loading
          ? loadingNotice('cycles-loading', 'Loading the cycles…')
          : nothing
        : html`${
            cycles.length === 0
              ? html`<p id="cycles-empty" class="empty">Your organization has no strategic cycles yet.</p>`
              : repeat(
                  cycles,
                  (cycle) => cycle.id,
                  (cycle) =>
                    cycleCard(
                      state,
                      cycle,
                      kpis.filter((kpi) => kpi.cycleId === cycle.id),
                      editable,
                    ),
                )
          }
          ${
            loose.length > 0
              ? html`<section id="no-cycle" aria-labelledby="no-cycle-title"><h3 id="no-cycle-title">KPIs in no cycle</h3>${kpiList(state, loose, editable)}</section>`
              : nothing
          }`
    }
  </section>`;
};
