/**
 * The audit page's content: the filters, and the events newest first, each with who acted, on what
 * (a key or a KPI linked to its own page), from where, and the details.
 */
import { html, nothing } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';
import { loadFailed, loadingNotice, timeCell } from '../shared/view';
import { applyFilters, loadEvents } from './actions';
import { namesOf } from './names';
import { type AuditEvent, EVENT_TYPES, NO_FILTERS, type State } from './state';

/** A name where one is known, else the id; the id is always the title. */
const named = (id: string, names: Map<string, string>) => {
  const name = names.get(id);
  return name ? html`<span title=${id}>${name}</span>` : html`<code>${id}</code>`;
};

/** The target, linked to the page that shows it where there is one. */
const targetCell = ({ target }: AuditEvent, names: Map<string, string>) => {
  const id = encodeURIComponent(target.id);
  const label = named(target.id, names);
  switch (target.type) {
    case 'api_key':
      return html`Key <a href="api-keys#key-${id}">${label}</a>`;
    case 'kpi':
      return html`KPI <a href="kpis?kpi=${id}">${label}</a>`;
    case 'integration':
      return html`Integration <a href="integrations#integration-${id}">${label}</a>`;
    default:
      return html`${target.type === 'webhook' ? 'Webhook' : 'User'} ${label}`;
  }
};

const actorCell = ({ actor }: AuditEvent, names: Map<string, string>) => {
  switch (actor.type) {
    case 'user':
      return actor.email
        ? html`<span title=${actor.id}>${actor.email}</span>`
        : html`User ${named(actor.id, names)}`;
    case 'api_key':
      return html`API key ${named(actor.id, names)}`;
    case 'github_secret_scanning':
      return html`GitHub secret scanning`;
    default:
      return html`Service <code>${actor.id}</code>`;
  }
};

/** One line a detail, so that a long value wraps within its line instead of splitting words. */
const detailsList = (details: AuditEvent['details']) => {
  const entries = Object.entries(details);
  return entries.length === 0
    ? '—'
    : html`<ul class="details-list">
        ${entries.map(
          ([name, value]) =>
            html`<li><span class="note">${name}</span> ${Array.isArray(value) ? value.join(', ') : String(value)}</li>`,
        )}
      </ul>`;
};

const row = (event: AuditEvent, names: Map<string, string>) =>
  html`<tr data-event-id=${event.id} data-type=${event.type}>
    <td data-label="When">${timeCell(event.at, '—')}</td>
    <th scope="row" data-label="Event">${event.type}</th>
    <td data-label="Actor">${actorCell(event, names)}</td>
    <td data-label="Target">${targetCell(event, names)}</td>
    <td data-label="Source">${event.source ? html`${event.source.ip}<br /><span class="note">${event.source.userAgent ?? ''}</span>` : '—'}</td>
    <td data-label="Details" class="details">${detailsList(event.details)}</td>
  </tr>`;

const filtersForm = (state: State) => {
  const { filters } = state;
  return html`<form id="audit-filters" aria-label="Filters" @submit=${applyFilters}>
    <div class="field"><label for="filter-from">From</label><input id="filter-from" name="from" type="datetime-local" .value=${filters.from} /></div>
    <div class="field"><label for="filter-to">To</label><input id="filter-to" name="to" type="datetime-local" .value=${filters.to} /></div>
    <div class="field">
      <label for="filter-type">Types</label>
      <select id="filter-type" name="type" multiple>
        ${EVENT_TYPES.map((type) => html`<option value=${type} ?selected=${filters.types.includes(type)}>${type}</option>`)}
      </select>
    </div>
    <div class="field"><label for="filter-actor">Actor (e-mail or id)</label><input id="filter-actor" name="actor" .value=${filters.actor} /></div>
    <div class="field"><label for="filter-target">Target id</label><input id="filter-target" name="targetId" .value=${filters.targetId} /></div>
    <div>
      <button type="submit" class="primary" id="apply-filters">Apply</button>
      <button type="button" id="clear-filters" @click=${() => loadEvents(NO_FILTERS)}>Clear</button>
    </div>
  </form>`;
};

const list = (state: State) => {
  if (state.loadError)
    return loadFailed('audit-error', 'the audit log', state.loadError, () => loadEvents(state.filters));
  if (!state.items) return loadingNotice('audit-loading', 'Loading the audit log…');
  if (state.items.length === 0)
    return html`<p id="audit-empty" class="empty">No events match these filters.</p>`;
  const names = namesOf(state.items);
  return html`<table id="audit-table">
      <caption>Events, newest first</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Actor</th><th scope="col">Target</th><th scope="col">Source</th><th scope="col">Details</th></tr></thead>
      <tbody>${repeat(
        state.items,
        (event) => event.id,
        (event) => row(event, names),
      )}</tbody>
    </table>
    ${
      state.nextCursor
        ? html`<p><button type="button" id="more-events" ?disabled=${state.loading} @click=${() => loadEvents(state.filters, true)}>Older events</button></p>`
        : nothing
    }`;
};

export const content = (state: State) =>
  html`<section aria-labelledby="audit-title">
    <h2 id="audit-title" tabindex="-1">Events</h2>
    ${
      state.forbidden
        ? html`<p id="audit-forbidden" class="notice">Only ADMINs can read the audit log.</p>`
        : html`${filtersForm(state)}${list(state)}`
    }
  </section>`;
