/**
 * The KPI page's views: the list (each KPI's latest value, trend, target status and arrivals, filtered
 * and sorted) and one KPI's detail (its chart and its measurements with the keys that pushed them).
 */
import { html, nothing, svg } from 'lit-html';
import type { ApiKeyResponse } from '../shared/api-types';
import { plural } from '../shared/format';
import { groupByCycle, NO_CYCLE, NO_OWNER, ownedBy, ownerName, ownersOf } from '../shared/groups';
import { canEdit } from '../shared/shell';
import { dayCell, loadFailed, loadingNotice, timeCell } from '../shared/view';
import { isListOf, listQueryOf, more, morePeriods, retryDetail, retryList, setArchived } from './actions';
import { chart, moveCursor } from './chart';
import { backtestInWords, chanceInWords, formatPeriod, formatValue, readout } from './format';
import { filter, follow, listSearch, refine, sortBy } from './routes';
import {
  type Detail,
  KPI_TYPES,
  type KpiItem,
  type Measurement,
  type Point,
  type Route,
  SORTS,
  type Sort,
  STATUS_LABELS,
  STATUS_ORDER,
  type State,
  TYPE_LABELS,
} from './state';

/** What a KPI expects, in words: its cadence and grace period. */
const expectation = (kpi: Pick<KpiItem, 'cadence' | 'graceHours'>) =>
  `Expected ${kpi.cadence}${kpi.graceHours > 0 ? ` (${kpi.graceHours} h grace)` : ''}.`;

type Arrivals = Pick<KpiItem, 'cadence' | 'graceHours' | 'quiet' | 'quietSince' | 'lastMeasurementAt'>;

/**
 * A quiet KPI's mark: "Quiet since <day>" in words, then the last arrival and what was expected (the
 * rule is the service's: nothing arrived for the cadence plus grace). The text carries the meaning;
 * the colour only repeats it.
 */
const quietMark = (kpi: Arrivals) =>
  html`<span class="quiet-mark"><span class="badge quiet">Quiet since ${
    kpi.quietSince ? dayCell(kpi.quietSince) : '—'
  }</span><span class="sub">${
    kpi.lastMeasurementAt ? html`Last data ${dayCell(kpi.lastMeasurementAt)}.` : 'No data yet.'
  } ${expectation(kpi)}</span></span>`;

/** Whether data arrives as expected: quiet, receiving, or nothing where no cadence is expected. */
const arrivalView = (kpi: Arrivals) =>
  kpi.quiet
    ? quietMark(kpi)
    : kpi.cadence === 'none'
      ? nothing
      : html`<span><span class="badge receiving">Receiving</span><span class="sub">${expectation(kpi)}</span></span>`;

const sparkline = (points: Point[]) => {
  const values = points.map((p) => p.actual);
  return html`<svg class="sparkline" viewBox="0 0 100 28" preserveAspectRatio="none" aria-hidden="true">${
    values.length === 0 ? nothing : sparklinePath(values)
  }</svg>`;
};

/** The values as a line across the box, the newest marked with a dot. */
const sparklinePath = (values: number[]) => {
  const min = Math.min(...values);
  const span = Math.max(...values) - min || 1;
  const xy = values.map((value, i) => [
    values.length === 1 ? 100 : (i / (values.length - 1)) * 100,
    26 - ((value - min) / span) * 24,
  ]);
  const [lastX, lastY] = xy.at(-1) ?? [0, 0];
  return svg`<polyline points=${xy.map(([x, y]) => `${x?.toFixed(1)},${y?.toFixed(1)}`).join(' ')}></polyline><circle cx=${String(lastX)} cy=${String(lastY)} r="2.5"></circle>`;
};

/** A KPI's link carries the list's filter and order, so that "All KPIs" returns to the same list. */
const kpiLink = (kpi: { id: string; name: string }, route: Route) => {
  const search = `?kpi=${encodeURIComponent(kpi.id)}${listSearch(route).replace('?', '&')}`;
  return html`<a href=${search} class="kpi-name" @click=${(event: MouseEvent) => follow(event, search)}>${kpi.name}</a>`;
};

/**
 * A KPI's status as a badge with its words; "as of" names the period it is measured on when that is
 * not the latest one (the newest measurement with a target). A qualitative KPI has none.
 */
const statusView = (status: KpiItem['status'], latest: Point | null) => {
  if (status === undefined) return '—';
  if (status === null) {
    return html`<span class="status-none" title="A qualitative KPI has no target to track">—<span class="visually-hidden">qualitative, no status</span></span>`;
  }
  const measured = status.measurement;
  const older =
    measured &&
    latest &&
    (measured.periodStart !== latest.periodStart || measured.periodEnd !== latest.periodEnd);
  return html`<span><span class="badge status ${status.value}">${STATUS_LABELS[status.value]}</span>${
    older
      ? html`<span class="sub">as of ${formatPeriod(measured.periodStart, measured.periodEnd)}</span>`
      : nothing
  }</span>`;
};

/** Where a KPI is changed: the strategy page, with the dialog `action` opens on. */
const manageLink = (kpi: KpiItem, action: 'edit' | 'targets' | 'archive' | 'restore', label: string) =>
  html`<a class="action" id="kpi-${action}" href="strategy?kpi=${encodeURIComponent(kpi.id)}&do=${action}" aria-label="${label} ${kpi.name}">${label}</a>`;

const archivedMark = (kpi: KpiItem) =>
  kpi.archivedAt ? html`<span class="sub"><span class="badge archived">Archived</span></span>` : nothing;

/** A row's actions for ADMIN and EDITOR: Edit and Targets open the strategy page's forms; Archive and Restore act here. */
const rowActions = (kpi: KpiItem) => {
  const archived = kpi.archivedAt !== undefined;
  const label = archived ? 'Restore' : 'Archive';
  return html`<td data-label="Actions" class="row-actions">${archived ? nothing : html`${manageLink(kpi, 'edit', 'Edit')} ${manageLink(kpi, 'targets', 'Targets')} `}<button type="button" class="action" aria-label="${label} ${kpi.name}" @click=${() => setArchived(kpi, !archived)}>${label}</button></td>`;
};

const kpiRow = (kpi: KpiItem, route: Route, editable: boolean) => {
  const latest = kpi.activity?.latest ?? null;
  return html`<tr data-kpi-id=${kpi.id} ?data-quiet=${kpi.quiet} ?data-archived=${kpi.archivedAt !== undefined} data-status=${kpi.status?.value ?? 'none'}>
    <th scope="row" data-label="KPI">${kpiLink(kpi, route)}${archivedMark(kpi)}</th>
    <td data-label="Type">${TYPE_LABELS[kpi.type] ?? kpi.type}</td>
    <td data-label="Latest">${
      latest
        ? html`<span class="value">${formatValue(latest.actual, kpi.unit)}${
            latest.target === null
              ? nothing
              : html`<span class="sub">target ${formatValue(latest.target, kpi.unit)}</span>`
          }</span>`
        : '—'
    }</td>
    <td data-label="Period">${latest ? formatPeriod(latest.periodStart, latest.periodEnd) : '—'}</td>
    <td data-label="Received">${timeCell(latest?.receivedAt ?? null, '—')}</td>
    <td data-label="Trend">${sparkline([...(kpi.activity?.recent ?? [])].reverse())}</td>
    <td data-label="Target">${statusView(kpi.status, latest)}</td>
    <td data-label="Freshness">${arrivalView(kpi)}</td>
    ${editable ? rowActions(kpi) : nothing}
  </tr>`;
};

/** The position of a KPI's status in the status order; qualitative KPIs come last. */
const statusRank = (kpi: KpiItem) =>
  kpi.status ? STATUS_ORDER.indexOf(kpi.status.value) : STATUS_ORDER.length;

const byName = (a: KpiItem, b: KpiItem) =>
  a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' });

/** The KPIs in the list's order: by status (then name), or by name. */
const sorted = (items: KpiItem[], sort: Sort) =>
  [...items].sort(sort === 'status' ? (a, b) => statusRank(a) - statusRank(b) || byName(a, b) : byName);

/** The list's filters beyond the type: the cycle, the owner, and the archived KPIs instead of the live ones. */
const refinements = (state: State, items: KpiItem[]) => {
  const { cycle, owner, archived } = state.route;
  const owners = ownersOf(items);
  if (owner && owner !== NO_OWNER && !owners.includes(owner)) owners.push(owner);
  return html`<div class="filter">
      <label for="cycle-filter">Cycle</label>
      <select id="cycle-filter" @change=${(event: Event) => refine({ cycle: (event.currentTarget as HTMLSelectElement).value || null })}>
        <option value="" .selected=${cycle === null}>All cycles</option>
        ${state.cycles.map((c) => html`<option value=${c.id} .selected=${c.id === cycle}>${c.name}</option>`)}
        <option value=${NO_CYCLE} .selected=${cycle === NO_CYCLE}>No cycle</option>
      </select>
    </div>
    <div class="filter">
      <label for="owner-filter">Owner</label>
      <select id="owner-filter" @change=${(event: Event) => refine({ owner: (event.currentTarget as HTMLSelectElement).value || null })}>
        <option value="" .selected=${owner === null}>Everyone</option>
        ${owners.map((id) => html`<option value=${id} .selected=${id === owner}>${ownerName(state.shell.claims?.sub, id)}</option>`)}
        <option value=${NO_OWNER} .selected=${owner === NO_OWNER}>No owner</option>
      </select>
    </div>
    <div class="filter">
      <input id="archived-filter" type="checkbox" .checked=${archived} @change=${(event: Event) => refine({ archived: (event.currentTarget as HTMLInputElement).checked })} />
      <label for="archived-filter">Archived KPIs only</label>
    </div>`;
};

/** The rows of the list: under a heading per cycle once the tenant's KPIs are in cycles. */
const listRows = (state: State, items: KpiItem[], editable: boolean) => {
  const { route } = state;
  const groups = groupByCycle(items, state.cycles);
  // By position, not keyed: a row's cells are rendered anew when the order changes, at no bundle cost.
  const rows = (group: KpiItem[]) => sorted(group, route.sort).map((kpi) => kpiRow(kpi, route, editable));
  if (groups.every((group) => group.cycle === null)) return rows(items);
  return groups.map(
    (group) =>
      html`<tr class="group" data-group=${group.cycle?.id ?? NO_CYCLE}><th scope="colgroup" colspan=${editable ? 9 : 8}>${
        group.cycle ? group.cycle.name : 'No cycle'
      } <span class="sub">${plural(group.items.length, 'KPI')}</span></th></tr>${rows(group.items)}`,
  );
};

export const listView = (state: State) => {
  const { route } = state;
  const { type, sort, cycle, owner } = route;
  const list = isListOf(state.list, listQueryOf(route)) ? state.list : null;
  const loaded = list?.items ?? [];
  const inCycle = cycle === NO_CYCLE ? loaded.filter((kpi) => !kpi.cycleId) : loaded;
  const items = ownedBy(inCycle, owner);
  const editable = canEdit(state.shell);
  const quiet = items.filter((kpi) => kpi.quiet).length;
  const offTrack = items.filter((kpi) => kpi.status?.value === 'off_track').length;
  return html`<section id="list" aria-labelledby="list-title" aria-busy=${state.listLoading ? 'true' : nothing}>
    <div class="section-head">
      <h2 id="list-title" tabindex="-1">KPIs of your organization</h2>
      ${editable ? html`<a id="kpi-new" class="button primary" href="strategy?do=new">New KPI</a>` : nothing}
    </div>
    <div class="controls">
        <div class="filter">
          <label for="type-filter">Type</label>
          <select id="type-filter" @change=${filter}>
            <option value="" .selected=${type === null}>All types</option>
            ${KPI_TYPES.map(
              (option) =>
                html`<option value=${option} .selected=${option === type}>${TYPE_LABELS[option]} (${option})</option>`,
            )}
          </select>
        </div>
        <div class="filter">
          <label for="sort">Sort by</label>
          <select id="sort" @change=${sortBy}>
            ${(Object.keys(SORTS) as Sort[]).map(
              (option) =>
                html`<option value=${option} .selected=${option === sort}>${SORTS[option]}</option>`,
            )}
          </select>
        </div>
        ${refinements(state, inCycle)}
    </div>
    ${
      items.length > 0
        ? html`<p id="list-summary" class="hint">${items.length}${list?.nextCursor ? '+' : ''} KPIs, ${quiet} quiet${
            offTrack > 0 ? `, ${offTrack} off track` : ''
          }.</p>`
        : nothing
    }
    ${state.listError ? loadFailed('list-error', 'The KPIs', state.listError, retryList) : nothing}
    ${
      !list
        ? nothing
        : items.length === 0
          ? html`<p id="list-empty" class="empty">${
              type
                ? `Your organization has no KPIs of the type ${TYPE_LABELS[type]}.`
                : cycle || owner
                  ? 'No KPI matches these filters.'
                  : 'Your organization has no KPIs yet.'
            }</p>`
          : html`<table id="kpi-table">
              <caption class="visually-hidden">KPIs with their latest measurement</caption>
              <thead>
                <tr>
                  <th scope="col" aria-sort=${sort === 'name' ? 'ascending' : nothing}>KPI</th>
                  <th scope="col">Type</th>
                  <th scope="col">Latest</th>
                  <th scope="col">Period</th>
                  <th scope="col">Received</th>
                  <th scope="col">Trend</th>
                  <th scope="col" aria-sort=${sort === 'status' ? 'other' : nothing}>Target</th>
                  <th scope="col">Freshness</th>
                  ${editable ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : nothing}
                </tr>
              </thead>
              <tbody id="kpi-body">${listRows(state, items, editable)}</tbody>
            </table>`
    }
    ${state.listLoading ? loadingNotice('list-loading', list ? 'Loading more KPIs…' : 'Loading KPIs…') : nothing}
    ${
      list?.nextCursor && !state.listLoading
        ? html`<div><button type="button" id="list-more" @click=${more}>Show more KPIs</button></div>`
        : nothing
    }
  </section>`;
};

const keyCell = (m: Measurement, keys: Map<string, ApiKeyResponse> | null) => {
  // A pulled value names its integration where a pushed one names its key.
  if (m.integrationId) {
    return html`<a class="integration-link" href="integrations#integration-${encodeURIComponent(m.integrationId)}">pulled by ${m.integrationName ?? 'an integration'}</a>`;
  }
  if (!m.apiKeyPrefix) return '—';
  const key = m.apiKeyId ? keys?.get(m.apiKeyId) : undefined;
  return key
    ? html`<a class="key-link" href="api-keys#key-${encodeURIComponent(key.id)}"><code>${m.apiKeyPrefix}</code>${key.name}</a>`
    : html`<span><code>${m.apiKeyPrefix}</code></span>`;
};

/** Who wrote a replaced value, in words. */
const writerText = (writer: NonNullable<Measurement['replaced']>['writtenBy']) =>
  writer === null
    ? 'written otherwise'
    : writer.type === 'integration'
      ? `pulled by ${writer.name}`
      : `pushed with key ${writer.prefix}`;

/** When a value replaced one that another source wrote: a push over a pull, a pull over a push, another key. */
const replacedNote = (m: Measurement, unit: string | undefined) =>
  m.replaced?.otherSource
    ? html`<span class="sub replaced">Replaced ${formatValue(m.replaced.actual, unit)}, ${writerText(m.replaced.writtenBy)}, ${timeCell(m.replaced.writtenAt, '')}</span>`
    : nothing;

/** The target a period is measured against, and whose it is: the measurement's own or the KPI's. */
const targetOf = (detail: Detail, m: Measurement) => {
  if (m.target !== null) return { value: m.target, source: 'measurement' as const };
  const kpiTarget = detail.kpi.targets?.find((t) => t.periodStart === m.periodStart);
  return kpiTarget ? { value: kpiTarget.value, source: 'kpi' as const } : null;
};

const TARGET_SOURCES = { measurement: 'pushed with the value', kpi: 'the KPI’s target' } as const;

const measurementRow = (detail: Detail, m: Measurement, keys: Map<string, ApiKeyResponse> | null) => {
  const unit = detail.kpi.unit;
  const target = targetOf(detail, m);
  return html`<tr data-period="${m.periodStart}/${m.periodEnd}">
    <th scope="row" data-label="Period">${formatPeriod(m.periodStart, m.periodEnd)}</th>
    <td data-label="Actual" class="value">${formatValue(m.actual, unit)}</td>
    <td data-label="Target" class="value" data-target-source=${target?.source ?? nothing}>${formatValue(target?.value ?? null, unit)}${
      target ? html`<span class="sub">${TARGET_SOURCES[target.source]}</span>` : nothing
    }</td>
    <td data-label="Forecast" class="value">${formatValue(m.forecast, unit)}</td>
    <td data-label="Received">${timeCell(m.receivedAt, '—')}</td>
    <td data-label="Pushed with key">${keyCell(m, keys)}${replacedNote(m, unit)}</td>
  </tr>`;
};

/** uPlot draws on a canvas; the figure's caption and the table carry the same values as text. */
/** Where the KPI is heading, in words: the target period's band and chance, and the backtest. */
const projectionView = (detail: Detail) => {
  const { projection } = detail;
  if (!projection) return nothing;
  if (projection.method === null)
    return html`<p id="projection" class="hint">No projection: ${projection.reason}</p>`;
  const last = projection.periods.at(-1);
  if (!last) return nothing;
  const unit = detail.kpi.unit;
  const chance =
    last.target !== undefined && last.probability !== undefined
      ? html` The chance of meeting the target of ${formatValue(last.target, unit)} is <strong id="projection-chance">${chanceInWords(last.probability)}</strong>.`
      : nothing;
  return html`<section id="projection" aria-labelledby="projection-title">
    <h3 id="projection-title">Projection</h3>
    <p id="projection-summary">By ${formatPeriod(last.periodStart, last.periodEnd)} the value is most likely about ${formatValue(last.p50, unit)}, and 4 times in 5 between ${formatValue(last.p10, unit)} and ${formatValue(last.p90, unit)}.${chance}</p>
    <p id="projection-backtest" class="hint">${backtestInWords(projection)}</p>
  </section>`;
};

const measurementsView = (state: State, detail: Detail) => {
  const { measurements } = detail;
  if (measurements.length === 0) {
    return html`<p id="detail-empty" class="empty">No measurements yet. They appear here once a system pushes them with an API key.</p>`;
  }
  const text = readout(detail, state.cursor);
  return html`<figure id="chart-figure">
      <div id="chart" class="chart" role="slider" tabindex="0" aria-label="Period shown in the chart" aria-describedby="chart-help" aria-valuemin="0" aria-valuemax=${Math.max(0, measurements.length + (detail.projection?.periods.length ?? 0) - 1)} aria-valuenow=${text ? (state.cursor ?? 0) : 0} aria-valuetext=${text || 'No period selected'} @keydown=${moveCursor} ${chart(detail)}></div>
      <figcaption>
        <ul class="legend">
          <li><span class="swatch actual"></span>Actual</li>
          <li><span class="swatch target"></span>Target</li>
          <li><span class="swatch forecast"></span>Forecast</li>
          ${detail.projection?.periods.length ? html`<li><span class="swatch projection"></span>Projection (median)</li><li><span class="swatch band"></span>80 % band</li>` : nothing}
        </ul>
        <p id="chart-help" class="hint">
          Actual against target and forecast by period. Focus the chart and use the arrow keys (Home, End) to
          read each period; the table below has every value shown.
        </p>
        <p id="chart-readout" class="readout">${text}</p>
      </figcaption>
    </figure>
    ${detail.nextCursor && !state.detailLoading ? html`<p><button type="button" id="periods-more" @click=${morePeriods}>Show earlier periods</button></p>` : nothing}
    ${projectionView(detail)}
    <h3 id="measurements-title">Measurements</h3>
    <table id="measurement-table" aria-labelledby="measurements-title">
      <thead>
        <tr>
          <th scope="col">Period</th>
          <th scope="col">Actual</th>
          <th scope="col">Target</th>
          <th scope="col">Forecast</th>
          <th scope="col">Received</th>
          <th scope="col">Pushed with key</th>
        </tr>
      </thead>
      <tbody id="measurement-body">${
        // Newest period first: the question is usually whether the latest push arrived.
        [...measurements].reverse().map((m) => measurementRow(detail, m, state.keyNames))
      }</tbody>
    </table>`;
};

/** Which target the status is measured against: the one pushed with the value, or the KPI's own. */
const targetSourceText = (detail: Detail) => {
  const source = (detail.kpi.status as { targetSource?: 'measurement' | 'kpi' } | null)?.targetSource;
  return source ? html` <span id="target-source">against ${TARGET_SOURCES[source]}</span>` : nothing;
};

/**
 * The KPI's settings in words, and for ADMIN and EDITOR its Edit, Targets and Archive (or Restore): they
 * open on the strategy page, which holds the forms (this page's budget is its chart).
 */
const settingsView = (state: State, detail: Detail) => {
  const kpi = detail.kpi as KpiItem;
  const cycle = state.cycles.find((c) => c.id === kpi.cycleId);
  const facts = [
    `Period: ${kpi.period}`,
    kpi.direction === 'lower_is_better' ? 'lower is better' : 'higher is better',
    `tolerance ${Math.round(kpi.tolerance * 1000) / 10} %`,
    ...(cycle ? [`cycle ${cycle.name}`] : []),
    ...(kpi.ownerId ? [`owner ${ownerName(state.shell.claims?.sub, kpi.ownerId)}`] : []),
  ];
  return html`<p id="detail-settings" class="hint">${facts.join(' · ')}${kpi.archivedAt ? html` · <span class="badge archived">Archived</span>` : nothing}</p>
    ${kpi.description ? html`<p id="detail-description">${kpi.description}</p>` : nothing}
    ${
      canEdit(state.shell)
        ? html`<p class="row-actions" id="detail-actions">${
            kpi.archivedAt
              ? manageLink(kpi, 'restore', 'Restore')
              : html`${manageLink(kpi, 'edit', 'Edit')} ${manageLink(kpi, 'targets', 'Targets')} ${manageLink(kpi, 'archive', 'Archive')}`
          }</p>`
        : nothing
    }`;
};

export const detailView = (state: State) => {
  const { detail, route } = state;
  const summary = state.list?.items.find((item) => item.id === route.kpiId);
  const list = listSearch(route);
  return html`<section id="detail" aria-labelledby="detail-title" aria-busy=${state.detailLoading ? 'true' : nothing}>
    <p class="back"><a id="back" href="kpis${list}" @click=${(event: MouseEvent) => follow(event, list)}>← All KPIs</a></p>
    <h2 id="detail-title" tabindex="-1">${detail?.kpi.name ?? summary?.name ?? 'KPI'}</h2>
    ${
      detail
        ? html`<p id="detail-meta" class="hint">${TYPE_LABELS[detail.kpi.type] ?? detail.kpi.type} (${detail.kpi.type}) · ${detail.nextCursor ? 'last ' : ''}${plural(detail.measurements.length, 'period')} · ${statusView(detail.kpi.status, detail.measurements.at(-1) ?? null)}${targetSourceText(detail)}${detail.kpi.quiet ? html` · ${quietMark(detail.kpi)}` : nothing}</p>
          ${settingsView(state, detail)}`
        : nothing
    }
    ${state.detailError ? loadFailed('detail-error', 'The KPI', state.detailError, state.detailMissing ? undefined : retryDetail) : nothing}
    ${state.detailLoading ? loadingNotice('detail-loading', 'Loading the KPI…') : nothing}
    ${detail ? measurementsView(state, detail) : nothing}
  </section>`;
};
